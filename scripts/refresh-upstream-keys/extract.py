"""Top-level config keys of an upstream tool, read from its Python sources with the ast module (nothing imported).

Usage: python3 extract.py CLASS[,CLASS...] FILE.py [FILE.py ...]
Prints a JSON list of the sorted field names of the named classes and of every base class defined in the
given files (pydantic models and dataclasses: annotated class attributes, ClassVar excluded), with the
names given by Field(alias=...) / Field(validation_alias=...) beside them.
"""
import ast
import json
import sys


def str_const(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def class_table(files):
    table = {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                table[node.name] = node
    return table


def is_classvar(annotation):
    text = ast.unparse(annotation)
    return text.startswith("ClassVar") or text.startswith("typing.ClassVar")


def fields_of(cls):
    names = []
    for stmt in cls.body:
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        if is_classvar(stmt.annotation):
            continue
        names.append(stmt.target.id)
        value = stmt.value
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "Field":
            for kw in value.keywords:
                if kw.arg in ("alias", "validation_alias"):
                    alias = str_const(kw.value)
                    if alias:
                        names.append(alias)
    return names


def keys_of(roots, table):
    seen, out = set(), set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen or name not in table:
            continue
        seen.add(name)
        cls = table[name]
        out.update(fields_of(cls))
        stack.extend(ast.unparse(b).split(".")[-1] for b in cls.bases)
    missing = [r for r in roots if r not in table]
    if missing:
        sys.exit(f"extract.py: no class {', '.join(missing)} in the files given")
    return sorted(out)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    print(json.dumps(keys_of(sys.argv[1].split(","), class_table(sys.argv[2:]))))
