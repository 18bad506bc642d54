/** Hub repo ids for commands that take a model: cached or fetched, loaded lazily (src/io/hub.ts). */

/**
 * A Hub repo id (owner/name) the catalog may not know: the Hub module (cache, then network) is loaded
 * only for such ids, so catalog ids and paths start as fast as before.
 */
export async function onlineModel(spec: string): Promise<string> {
  if (!/^[\w.-]+\/[\w.-]+$/.test(spec)) return spec;
  const { prepareModel } = await import('../io/hub.js');
  return prepareModel(spec);
}
