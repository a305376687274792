#!/usr/bin/env bash
# Installs what the build needs and is missing (Debian packages). Quiet when
# everything is there. The CUDA toolkit itself is not a Debian package: its
# headers are needed to build; its libraries are optional at run time.
set -euo pipefail
# gdb: the CPU backend's debugger test (tests/debug/gdb_kernel.sh); ccache:
# a second build of the same sources (another checkout, CI) from the cache.
packages=(cmake g++ make libgtest-dev libcli11-dev libxxhash-dev libboost-context-dev python3 gdb
  ccache)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# Python: the venv `make test` makes needs venv/ensurepip and the headers of
# the `python3` on PATH (a Debian python3 lacks both without these packages).
if command -v python3 >/dev/null 2>&1; then
  python3 -c "import ensurepip, venv" >/dev/null 2>&1 || missing+=(python3-venv)
  python3 -c "import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" \
    || missing+=(python3-dev)
else
  missing+=(python3 python3-venv python3-dev)
fi
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -e /usr/local/cuda/include/cuda.h ]; then
  echo "warning: no CUDA toolkit found (nvcc, /usr/local/cuda): the build needs its headers" >&2
fi
