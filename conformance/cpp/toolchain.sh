# Sourced by build.sh and build_json.sh: checks that Debian's
# libflatbuffers-dev header HEADER and the C++ compiler (CXX, default g++)
# are present, naming what to install when not, and sets `cxx`.
# Usage: require_toolchain SCRIPT HEADER
require_toolchain() {
  local script="$1" header="$2"
  cxx="${CXX:-g++}"
  if [[ ! -f "$header" ]]; then
    echo "$script: $header not found; install Debian's libflatbuffers-dev" \
         "(apt-get install libflatbuffers-dev) and run again" >&2
    exit 1
  fi
  if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "$script: C++ compiler '$cxx' not found (install g++)" >&2
    exit 1
  fi
}
