#!/usr/bin/env bash
# Builds the C++ reference JSON parser (json_parse.cpp, see PROTOCOL.md)
# against Debian's libflatbuffers-dev (its header and library).
# Usage: conformance/cpp/build_json.sh [OUTPUT]
# (default OUTPUT: conformance/cpp/build/json_parse). Installs nothing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/build/json_parse}"
# shellcheck source=toolchain.sh
source "$here/toolchain.sh"
require_toolchain build_json.sh /usr/include/flatbuffers/idl.h

mkdir -p "$(dirname "$out")"
set -x
"$cxx" -O1 -std=c++17 -Wall -Wextra -Werror -o "$out" "$here/json_parse.cpp" -lflatbuffers
