/** The version `vramplan --version` prints (package.json's). */
export const VERSION = '0.1.0';
