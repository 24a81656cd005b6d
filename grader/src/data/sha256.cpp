// sha256.cpp: SHA-256 as FIPS 180-4 section 6.2 states it, one 64-byte block at a time.
#include "data/sha256.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace grader {

namespace {

// FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
constexpr std::array<std::uint32_t, 64> k_round_constants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// FIPS 180-4 5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8 primes.
constexpr std::array<std::uint32_t, 8> k_initial_state = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

std::uint32_t load_big_endian(const std::byte* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
         std::uint32_t(p[3]);
}

}  // namespace

Sha256::Sha256() : state_(k_initial_state) {}

void Sha256::compress(const std::byte* block) {
  std::uint32_t w[64];
  for (int t = 0; t < 16; ++t) w[t] = load_big_endian(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    const std::uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }

  std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (int t = 0; t < 64; ++t) {
    const std::uint32_t sigma1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
    const std::uint32_t choose = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + sigma1 + choose + k_round_constants[t] + w[t];
    const std::uint32_t sigma0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
    const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::update(std::span<const std::byte> data) {
  total_bytes_ += data.size();
  if (pending_size_ > 0) {
    const std::size_t take = std::min(data.size(), pending_.size() - pending_size_);
    if (take > 0) std::memcpy(pending_.data() + pending_size_, data.data(), take);
    pending_size_ += take;
    data = data.subspan(take);
    if (pending_size_ < pending_.size()) return;
    compress(pending_.data());
    pending_size_ = 0;
  }
  while (data.size() >= 64) {
    compress(data.data());
    data = data.subspan(64);
  }
  if (!data.empty()) std::memcpy(pending_.data(), data.data(), data.size());  // data() may be null when empty
  pending_size_ = data.size();
}

std::string Sha256::hex() {
  // FIPS 180-4 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, then the message length in bits, big-endian.
  const std::uint64_t bit_length = total_bytes_ * 8;
  std::array<std::byte, 72> padding{};
  padding[0] = std::byte{0x80};
  const std::size_t zeros = (pending_size_ < 56 ? 56 : 120) - pending_size_ - 1;
  for (int i = 0; i < 8; ++i) padding[1 + zeros + i] = std::byte(bit_length >> (56 - 8 * i));
  update(std::span(padding.data(), 1 + zeros + 8));

  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  text.reserve(64);
  for (std::uint32_t word : state_) {
    for (int shift = 28; shift >= 0; shift -= 4) text += digits[(word >> shift) & 0xf];
  }
  return text;
}

std::string sha256_hex(std::span<const std::byte> data) {
  Sha256 hash;
  hash.update(data);
  return hash.hex();
}

std::string sha256_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open for reading");
  Sha256 hash;
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.update(std::as_bytes(std::span(buffer.data(), static_cast<std::size_t>(in.gcount()))));
  }
  if (in.bad()) throw std::runtime_error(path.string() + ": read error");
  return hash.hex();
}

}  // namespace grader
