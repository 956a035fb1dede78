"""The inventory's data files: JSON with one row a line, so that a new run's diff is readable.

    {"header key": value,
     ...,
    "rows key": [
    {row},
    {row}
    ]}

`write_lines` writes one, `read_rows` reads it back (plain `json.load` reads it too).
"""
import json


def write_lines(path, header, key, rows, extra=None):
    """Write {header..., key: [row a line], extra lists...}; keys sorted within rows."""
    header = {k: v for k, v in header.items() if v is not None}
    with open(path, "w") as f:
        f.write("{\n")
        for k, v in header.items():
            f.write(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)},\n")
        lists = [(key, rows)] + sorted((extra or {}).items())
        for i, (k, items) in enumerate(lists):
            f.write(f"{json.dumps(k)}: [\n")
            f.write(",\n".join(json.dumps(r, sort_keys=True, allow_nan=False, ensure_ascii=False)
                               for r in items))
            f.write("\n]" + ("," if i < len(lists) - 1 else "") + "\n")
        f.write("}\n")


def read_rows(path, key):
    """(the whole file as a dict, its list under `key`)."""
    with open(path) as f:
        data = json.load(f)
    return data, data[key]
