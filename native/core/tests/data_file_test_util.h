// Helpers shared by the data-file tests: data_file_test.cpp (POSIX) and data_file_win_test.cpp (Windows).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifdef _WIN32
#include <windows.h>

#include <random>
#else
#include <stdlib.h>
#endif

#include "dotcov/data_file.h"

namespace dotcov::test_util {

// A fresh directory of its own under the temporary directory.
inline std::filesystem::path MakeTempDir() {
#ifdef _WIN32
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("dotcov-test-" + std::to_string(GetCurrentProcessId()) + "-" +
                               std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  return dir;
#else
  char tmpl[] = "/tmp/dotcov-test-XXXXXX";
  return std::filesystem::path(mkdtemp(tmpl));
#endif
}

// The whole file, read as `combine` reads a live one (the writer's lock blocks no read).
inline std::vector<uint8_t> ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A module identity whose MVID and PDB id follow from `seed`.
inline ModuleIdentity Ident(uint8_t seed, std::string path) {
  ModuleIdentity id;
  for (int i = 0; i < 16; ++i) id.mvid[i] = uint8_t(seed + i);
  for (int i = 0; i < 20; ++i) id.pdb_id[i] = uint8_t(seed * 3 + i);
  id.path = std::move(path);
  return id;
}

}  // namespace dotcov::test_util
