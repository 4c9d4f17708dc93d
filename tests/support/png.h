#pragma once
// Decoding the PNG screenshots a browser writes (8-bit greyscale, RGB or RGBA, not interlaced),
// for tests that look at what was drawn: zlib inflates, then each row is unfiltered.

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace ompscale::test_support {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  ///< width * height * 3

  const std::uint8_t* pixel(int x, int y) const {
    return &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
  }
};

namespace png_detail {

inline std::uint32_t be32(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 3]));
}

inline int paeth(int a, int b, int c) {
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

}  // namespace png_detail

/// The image in PNG `data`; std::runtime_error for anything but 8-bit non-interlaced grey, RGB
/// or RGBA.
inline Image decode_png(const std::string& data) {
  using png_detail::be32;
  if (data.size() < 8 || data.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    throw std::runtime_error("not a PNG");
  }
  Image image;
  int channels = 0;
  std::string compressed;
  for (std::size_t at = 8; at + 12 <= data.size();) {
    const std::uint32_t length = be32(data, at);
    const std::string type = data.substr(at + 4, 4);
    if (type == "IHDR") {
      image.width = static_cast<int>(be32(data, at + 8));
      image.height = static_cast<int>(be32(data, at + 12));
      const int depth = static_cast<std::uint8_t>(data[at + 16]);
      const int colour = static_cast<std::uint8_t>(data[at + 17]);
      const int interlace = static_cast<std::uint8_t>(data[at + 20]);
      channels = colour == 0 ? 1 : colour == 2 ? 3 : colour == 6 ? 4 : 0;
      if (depth != 8 || channels == 0 || interlace != 0) throw std::runtime_error("PNG kind");
    } else if (type == "IDAT") {
      compressed += data.substr(at + 8, length);
    }
    at += 12 + length;
  }
  const std::size_t stride = static_cast<std::size_t>(image.width) * channels;
  std::vector<std::uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(compressed.data()),
                 compressed.size()) != Z_OK) {
    throw std::runtime_error("PNG data does not inflate");
  }
  std::vector<std::uint8_t> previous(stride, 0), row(stride);
  image.rgb.resize(static_cast<std::size_t>(image.width) * image.height * 3);
  for (int y = 0; y < image.height; ++y) {
    const std::uint8_t* in = &raw[y * (stride + 1)];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<std::size_t>(channels) ? row[i - channels] : 0;
      const int b = previous[i];
      const int c = i >= static_cast<std::size_t>(channels) ? previous[i - channels] : 0;
      const int predictor = in[0] == 1   ? a
                            : in[0] == 2 ? b
                            : in[0] == 3 ? (a + b) / 2
                            : in[0] == 4 ? png_detail::paeth(a, b, c)
                                         : 0;
      row[i] = static_cast<std::uint8_t>(in[1 + i] + predictor);
    }
    for (int x = 0; x < image.width; ++x) {
      for (int k = 0; k < 3; ++k) {
        image.rgb[(static_cast<std::size_t>(y) * image.width + x) * 3 + k] =
            row[static_cast<std::size_t>(x) * channels + (channels == 1 ? 0 : k)];
      }
    }
    previous = row;
  }
  return image;
}

}  // namespace ompscale::test_support
