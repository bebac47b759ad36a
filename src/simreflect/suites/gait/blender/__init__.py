"""The gait suite's Blender interface: episodes as .blend files, fix scripts in bpy run by Blender.

- `bridge.py` runs inside Blender (a Python with the `bpy` module, or a `blender` binary): rig.json
  to .blend, running a bpy fix script on a .blend, and .blend back to rig.json.
- `runtime.py` finds Blender (SIMREFLECT_BLENDER_PYTHON, SIMREFLECT_BLENDER, or .venv-blender) and
  runs the bridge in the sandbox.
- `interface.py` is the trusted side the suite uses: the per-episode .blend cache, running a fix
  script, reading the saved file back and verifying it with the numpy verifier.
- `oracle.py` writes the oracle repair as a bpy script.
- `python -m simreflect.suites.gait.blender export BENCH --out DIR` writes every episode as a .blend
  (with its bpy oracle); `... import FILE.blend --out rig.json` reads one back.

Nothing here imports bpy into our process: Blender has its own (numpy<2) environment.
"""
