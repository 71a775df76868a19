#pragma once
// Internal to binary/: RAII over a file descriptor and a libelf handle, and
// opening a file as ELF with the checks every reader needs first.

#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "util/error.hpp"

namespace flashfit::binary::detail {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

class ElfHandle {
 public:
  explicit ElfHandle(Elf* elf) : elf_(elf) {}
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
  ~ElfHandle() {
    if (elf_ != nullptr) elf_end(elf_);
  }
  Elf* get() const { return elf_; }

 private:
  Elf* elf_;
};

// The descriptor must outlive the Elf handle: members are destroyed in
// reverse order, so `elf` (declared last) ends first.
struct OpenElf {
  std::unique_ptr<FileDescriptor> fd;
  std::unique_ptr<ElfHandle> elf;
  GElf_Ehdr header{};
  std::string context;
  std::size_t section_names = 0;  // open_elf_sections: the section-name table's index
};

// libelf's message for its last error.
std::string libelf_message();

// Opens `path` read-only with ELF_C_READ_MMAP: a regular file, at least an
// ELF identification long, of kind ELF, with a readable header.
util::Result<OpenElf> open_elf(const std::filesystem::path& path);

// The index of the section holding section names (for elf_strptr on sh_name).
util::Result<std::size_t> section_names_index(const OpenElf& opened);
// open_elf with section_names set: for the readers that walk sections by name.
util::Result<OpenElf> open_elf_sections(const std::filesystem::path& path);

}  // namespace flashfit::binary::detail
