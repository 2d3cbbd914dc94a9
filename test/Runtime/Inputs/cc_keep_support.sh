#!/bin/sh
# A C compiler for decoda-compile (CC=...) that also copies the generated ABI support source
# (the one .c argument) to $SUPPORT_OUT, so a test can rebuild the model from --emit=llvm IR.
for a in "$@"; do case "$a" in *.c) cp "$a" "$SUPPORT_OUT" ;; esac; done
exec cc "$@"
