// Prints what the C++ reference verifier (flexbuffers::VerifyBuffer from
// Debian's libflatbuffers-dev) says about each file given on the command line,
// without and with a reuse tracker: "<file> <plain 0|1> <tracker 0|1>".
// It documents where the C++ verifier and ours differ (see README.md); it is
// not part of any test. Build and run from the repository root:
//
//   g++ -O1 -std=c++17 -o /tmp/cpp_verdicts conformance/invalid/cpp_verdicts.cpp
//   /tmp/cpp_verdicts conformance/invalid/*.bin
#include <flatbuffers/flexbuffers.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << argv[i] << "\n";
      return 1;
    }
    std::vector<uint8_t> buf((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    // VerifyBuffer reads no byte of an empty buffer, but data() must not be null.
    buf.reserve(1);
    std::vector<uint8_t> tracker;
    bool plain = flexbuffers::VerifyBuffer(buf.data(), buf.size());
    bool tracked = flexbuffers::VerifyBuffer(buf.data(), buf.size(), &tracker);
    std::cout << argv[i] << " " << plain << " " << tracked << "\n";
  }
  return 0;
}
