#include "formats/file_io.hpp"
#include "core/check.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

using namespace headlab;
using namespace headlab::formats;

TEST_CASE("files: an atomic write replaces the whole file and leaves no temporary", "[formats][file_io]") {
  const auto dir = std::filesystem::temp_directory_path() / "headlab-file-io-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  write_file_atomically(path, "first, longer text\n");
  write_file_atomically(path, "second\n");
  CHECK(read_text_file(path, "--in") == "second\n");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator{}) == 1);
  CHECK_THROWS_WITH(read_text_file(path, "--in", 3), "--in: \"" + path + "\" is larger than 3 bytes");
  CHECK_THROWS_WITH(read_text_file((dir / "absent").string(), "--in"), Catch::StartsWith("--in: cannot open"));
  // Writing into a directory that does not exist fails with a message and creates nothing.
  CHECK_THROWS_WITH(write_file_atomically((dir / "no" / "x.json").string(), "x"),
                    Catch::StartsWith("--out: cannot write"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("files: a directory given as a file is called a directory, read or written", "[formats][file_io]") {
  const auto dir = std::filesystem::temp_directory_path() / "headlab-file-io-dir-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  const std::string sub = (dir / "sub").string();
  // A directory opens as a stream and reports a size of 2^63 − 1: it was "larger than 4194304 bytes".
  CHECK_THROWS_WITH(read_text_file(sub, "--config", 4194304), "--config: \"" + sub + "\" is a directory, not a file");
  CHECK_THROWS_WITH(write_file_atomically(sub, "x", "--out"), "--out: \"" + sub + "\" is a directory, not a file");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator{}) == 1);
  std::filesystem::remove_all(dir);
}
