#include "binary/elf_handle.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace flashfit::binary::detail {

std::string libelf_message() {
  const char* message = elf_errmsg(-1);
  return message != nullptr ? std::string(message) : std::string("unknown libelf error");
}

util::Result<OpenElf> open_elf(const std::filesystem::path& path) {
  // elf_version must run once before any other libelf call.
  static std::once_flag once;
  static bool version_ok = false;
  std::call_once(once, [] { version_ok = elf_version(EV_CURRENT) != EV_NONE; });

  OpenElf opened;
  opened.context = path.string();
  if (!version_ok) {
    return util::fail(util::ErrorKind::internal, "libelf does not support the current ELF version",
                      opened.context);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return util::input_error(fmt::format("cannot open: {}", std::strerror(errno)), opened.context);
  }
  opened.fd = std::make_unique<FileDescriptor>(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return util::input_error(fmt::format("cannot stat: {}", std::strerror(errno)), opened.context);
  }
  // A FIFO or device would block or mmap oddly; only plain files are ELF objects here.
  if (!S_ISREG(info.st_mode)) return util::input_error("not a regular file", opened.context);
  if (info.st_size < EI_NIDENT) {
    return util::input_error(
        fmt::format("not an ELF file: only {} bytes, shorter than an ELF header", info.st_size),
        opened.context);
  }

  opened.elf = std::make_unique<ElfHandle>(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  Elf* elf = opened.elf->get();
  if (elf == nullptr) {
    return util::input_error(fmt::format("not a readable ELF file: {}", libelf_message()),
                             opened.context);
  }
  if (elf_kind(elf) != ELF_K_ELF) {
    return util::input_error("not an ELF file (no \\x7fELF magic)", opened.context);
  }
  if (gelf_getehdr(elf, &opened.header) == nullptr) {
    return util::input_error(fmt::format("truncated or invalid ELF header: {}", libelf_message()),
                             opened.context);
  }
  return opened;
}

// A string from a string table section; errors rather than pointing past it
util::Result<std::size_t> section_names_index(const OpenElf& opened) {
  std::size_t index = 0;
  if (elf_getshdrstrndx(opened.elf->get(), &index) != 0) {
    return util::input_error(fmt::format("cannot find section names: {}", libelf_message()),
                             opened.context);
  }
  return index;
}

util::Result<OpenElf> open_elf_sections(const std::filesystem::path& path) {
  auto opened = open_elf(path);
  if (!opened) return opened;
  auto names = section_names_index(*opened);
  if (!names) return tl::unexpected(std::move(names.error()));
  opened->section_names = *names;
  return opened;
}

}  // namespace flashfit::binary::detail
