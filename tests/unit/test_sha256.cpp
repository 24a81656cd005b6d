// test_sha256.cpp: SHA-256 against the FIPS 180-4 example vectors (NIST CSRC "Examples with intermediate values").
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "data/sha256.h"

using namespace grader;

namespace {

std::string hash_of(std::string_view text) { return sha256_hex(std::as_bytes(std::span(text.data(), text.size()))); }

}  // namespace

TEST_CASE("the FIPS 180-4 test vectors") {
  CHECK(hash_of("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hash_of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding no longer fits the first block, so a second block holds only the length.
  CHECK(hash_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hash_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                "mnopqrstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(hash_of(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("the digest does not depend on how the data is split across update calls") {
  std::string text;
  for (int i = 0; i < 200; ++i) text += static_cast<char>('a' + i % 26);
  const std::string whole = hash_of(text);
  for (std::size_t split = 0; split <= text.size(); ++split) {
    Sha256 hash;
    hash.update(std::as_bytes(std::span(text.data(), split)));
    hash.update(std::as_bytes(std::span(text.data() + split, text.size() - split)));
    CHECK_MESSAGE(hash.hex() == whole, "split at " << split);
  }
}

TEST_CASE("every message length around the block boundaries pads correctly") {
  // 55, 56 and 64 bytes are where the length field moves to a second block; compare one-shot with
  // byte-by-byte hashing, which takes the buffered path for every byte.
  for (std::size_t length : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128}) {
    const std::string text(length, 'x');
    Sha256 hash;
    for (char c : text) hash.update(std::as_bytes(std::span(&c, 1)));
    CHECK_MESSAGE(hash.hex() == hash_of(text), "length " << length);
  }
  CHECK(hash_of(std::string(56, 'x')) != hash_of(std::string(57, 'x')));
}

TEST_CASE("sha256_file hashes the file's bytes, and names a file it cannot read") {
  const auto path = std::filesystem::temp_directory_path() / ("test_sha256_" + std::to_string(getpid()) + ".bin");
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(100000, 'a') << "abc";  // more than one read chunk
  }
  CHECK(sha256_file(path) == hash_of(std::string(100000, 'a') + "abc"));
  std::filesystem::remove(path);
  CHECK_THROWS_WITH_AS(sha256_file(path), doctest::Contains(path.filename().string().c_str()), std::runtime_error);
}
