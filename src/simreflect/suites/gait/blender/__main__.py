"""`python -m simreflect.suites.gait.blender export BENCH --out DIR` | `import FILE.blend --out RIG.json`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from simreflect.suites.gait.blender.interface import export_benchmark, import_blend_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simreflect.suites.gait.blender",
                                     description="Gait episodes as Blender files, and back.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    exp = sub.add_parser("export", help="every episode of a built benchmark as DIR/epXX.blend (+ its bpy oracle)")
    exp.add_argument("bench", type=Path)
    exp.add_argument("--out", type=Path, required=True)
    imp = sub.add_parser("import", help="a .blend back into the rig format (rig.json)")
    imp.add_argument("blend", type=Path)
    imp.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.cmd == "export":
        for path in export_benchmark(args.bench, args.out):
            print(path)
        return 0
    rig, problems = import_blend_file(args.blend)
    args.out.write_text(rig.to_json())
    for p in problems:
        print(f"warning: {p}", file=sys.stderr)
    print(json.dumps({"rig": str(args.out), "bones": len(rig.bones), "vertices": len(rig.rest_vertices),
                      "frames": rig.frame_count, "problems": problems}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
