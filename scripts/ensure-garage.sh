#!/usr/bin/env bash
# Prints the path of a Garage binary (an S3-compatible object store server), installing the
# pinned version into .tools/ if none is on PATH. Only the LMDB metadata engine is built: no
# K2V, metrics or SQLite, to keep the one-time build short.
exec "$(dirname "$0")/ensure-cargo-tool.sh" garage garage 2.5.0 --no-default-features --features lmdb,bundled-libs
