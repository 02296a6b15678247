#!/bin/bash
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
fs_done
