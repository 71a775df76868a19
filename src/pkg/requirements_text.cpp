// Bytes to logical lines, as pip 23.0.1's req_file does; see
// requirements_text.hpp.
#include "pkg/requirements_text.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <optional>

#include "pkg/python_string.hpp"

namespace flashfit::pkg::detail {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

bool is_comment_line(std::string_view line) {
  const auto t = trim(line);
  return !t.empty() && t.front() == '#';
}

std::uint32_t unit(std::string_view bytes, std::size_t at, std::size_t width, bool big_endian) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const auto byte = static_cast<unsigned char>(bytes[at + (big_endian ? i : width - 1 - i)]);
    value = (value << 8) | byte;
  }
  return value;
}

// UTF-16 or UTF-32 code units (BOM already removed) as UTF-8; nullopt where
// Python's decoder would fail (a cut unit, a lone surrogate, beyond U+10FFFF).
std::optional<std::string> to_utf8(std::string_view bytes, std::size_t width, bool big_endian) {
  if (bytes.size() % width != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += width) {
    std::uint32_t cp = unit(bytes, i, width, big_endian);
    if (width == 2 && cp >= 0xd800 && cp < 0xdc00) {
      if (i + 2 >= bytes.size()) return std::nullopt;
      const std::uint32_t low = unit(bytes, i + 2, 2, big_endian);
      if (low < 0xdc00 || low >= 0xe000) return std::nullopt;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      i += 2;
    } else if ((cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff) {
      return std::nullopt;
    }
    append_utf8(out, static_cast<char32_t>(cp));
  }
  return out;
}

// The length of the line separator at `i` (0 when there is none there).
std::size_t separator_at(std::string_view text, std::size_t i) {
  switch (static_cast<unsigned char>(text[i])) {
    case '\r':
      return i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
    case '\n':
    case '\v':
    case '\f':
    case 0x1c:
    case 0x1d:
    case 0x1e:
      return 1;
    case 0xc2:  // U+0085 NEXT LINE
      return i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x85 ? 2 : 0;
    case 0xe2:  // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR
      return starts_with(text.substr(i), "\xe2\x80\xa8") ||
                     starts_with(text.substr(i), "\xe2\x80\xa9")
                 ? 3
                 : 0;
    default:
      return 0;
  }
}

}  // namespace

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

util::Result<std::string> decode_text(std::string_view bytes, const std::string& file) {
  struct Bom {
    std::string_view bytes;
    std::size_t width;
    bool big_endian;
    std::string_view name;
  };
  // pip's order: UTF-32 LE's BOM starts with UTF-16 LE's, so it is tested first here.
  static constexpr Bom kBoms[] = {
      {std::string_view("\xff\xfe\x00\x00", 4), 0, false, "UTF-32 (little-endian)"},
      {std::string_view("\x00\x00\xfe\xff", 4), 4, true, "UTF-32"},
      {"\xef\xbb\xbf", 1, false, "UTF-8"},
      {"\xfe\xff", 2, true, "UTF-16"},
      {"\xff\xfe", 2, false, "UTF-16"},
  };
  for (const Bom& bom : kBoms) {
    if (!starts_with(bytes, bom.bytes)) continue;
    const auto rest = bytes.substr(bom.bytes.size());
    if (bom.width == 1) return std::string(rest);
    const auto hint = "save the file as UTF-8";
    if (bom.width == 0) {
      return util::input_error(
          fmt::format("the file is {}, which pip 23.0.1 misreads as UTF-16", bom.name), file, hint);
    }
    auto text = to_utf8(rest, bom.width, bom.big_endian);
    if (!text) {
      return util::input_error(fmt::format("the file starts with a {} byte-order mark but is not "
                                           "valid {}",
                                           bom.name, bom.name),
                               file, hint);
    }
    return std::move(*text);
  }
  return std::string(bytes);
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = separator_at(text, i);
    if (length == 0) {
      ++i;
      continue;
    }
    out.push_back(text.substr(start, i - start));
    i += length;
    start = i;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

std::string_view strip_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || is_space(line[i - 1]))) return line.substr(0, i);
  }
  return line;
}

util::Result<std::vector<LogicalLine>> join_lines(std::string_view text, const std::string& file) {
  std::vector<LogicalLine> out;
  std::optional<LogicalLine> pending;
  std::size_t number = 0;
  for (const std::string_view line : split_lines(text)) {
    ++number;
    if (line.find('\0') != std::string_view::npos) {
      return util::input_error("NUL byte in line", fmt::format("{}:{}", file, number));
    }
    const bool continues = !line.empty() && line.back() == '\\' && !is_comment_line(line);
    if (continues) {
      if (!pending) pending = LogicalLine{number, {}};
      std::string_view body = line;
      while (!body.empty() && body.back() == '\\') body.remove_suffix(1);
      pending->text += body;
      continue;
    }
    if (pending) {
      // A comment line ends a continuation, as in pip (prefixed so it stays a comment).
      pending->text += is_comment_line(line) ? " " + std::string(line) : std::string(line);
      out.push_back(std::move(*pending));
      pending.reset();
    } else {
      out.push_back({number, std::string(line)});
    }
  }
  if (pending) {
    return util::input_error("unterminated line continuation at end of file",
                             fmt::format("{}:{}", file, pending->number),
                             "remove the trailing '\\' or add the continued line");
  }
  return out;
}

}  // namespace flashfit::pkg::detail
