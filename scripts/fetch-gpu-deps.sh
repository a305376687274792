#!/usr/bin/env bash
# Downloads the Debian packages the GPU check machine lacks (xxHash headers,
# Boost.Context) into .deps/ (git-ignored), which is carried to that machine;
# scripts/gpu-check.sh unpacks them there. Run it here, where apt works.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
cd .deps
apt-get download libxxhash-dev libboost-context1.74-dev libboost-context1.74.0
ls -l ./*.deb
