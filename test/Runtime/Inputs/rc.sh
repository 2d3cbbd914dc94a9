#!/usr/bin/env bash
# Runs a command with stderr merged into stdout, then prints "exit code N"; always succeeds, so a
# FileCheck test can check the exact exit status.
"$@" 2>&1
echo "exit code $?"
