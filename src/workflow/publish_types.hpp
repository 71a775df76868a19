#pragma once
// The values `flashfit publish` decides with (docs/publish.md): what is known
// about each wheel, the environment pages it may go on, what a target already
// holds, and the plan the executor carries out. No I/O here.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace flashfit::binary {
struct WheelBytes;  // binary/wheel_bytes.hpp
}  // namespace flashfit::binary

namespace flashfit::workflow {

// A torch build a find-links page is for ("torch-2.9.1+cu128.html").
struct EnvKey {
  std::string torch_version;  // as torch.__version__ says it: "2.9.1+cu128"
  int torch_major = 0;
  int torch_minor = 0;
  // CUDA of the torch build: from a "+cuXYZ" label; "+cpu" is known-none.
  // Unknown (no label) is neither: CUDA wheels are then kept off the page.
  std::optional<int> cuda_major;
  std::optional<int> cuda_minor;
  bool cpu_only = false;
  bool cxx11_abi = true;  // the C++11 string ABI torch was built with
  // The page's file name: "torch-2.9.1+cu128.html"; "-cxx11abi0" is appended
  // for pre-C++11-ABI builds so the two never share a page.
  std::string page_name() const;
  friend bool operator==(const EnvKey&, const EnvKey&) = default;
};

// What a wheel's own bytes and name say it was built for.
struct WheelFacts {
  std::string filename;          // "ffext_abi1-0.1.0-cp311-cp311-linux_x86_64.whl"
  std::string project;           // PEP 503 normalised: "ffext-abi1"
  std::string version;           // the file name's version
  std::string metadata_version;  // METADATA's Version (upstream drops the local label)
  std::string metadata_name;     // METADATA's Name as written ("flash_attn"); "" when unknown
  std::string requires_python;   // METADATA's Requires-Python, empty when absent
  std::string sha256;            // of the file as published
  std::uint64_t size = 0;
  std::string python_tag;    // "cp311"
  std::string platform_tag;  // "linux_x86_64"
  // Torch it was built for, from its variant label (major.minor), else unknown.
  std::optional<int> torch_major;
  std::optional<int> torch_minor;
  std::optional<int> cuda_major;  // label or the libcudart it links
  std::optional<int> cuda_minor;
  bool uses_cuda = false;         // links a CUDA runtime, carries kernels or says cuXY
  std::optional<bool> cxx11_abi;  // from its symbols; the label only when they say nothing
  std::vector<int> sass_archs;    // SM numbers with SASS
  std::vector<int> ptx_archs;     // SM numbers with PTX
  std::string source;             // "file", "cache", "build"
  std::string original_url;       // a cached wheel: the URL it was fetched from; else empty
  std::string original_sha256;    // before a METADATA rewrite; empty when none
  std::vector<EnvKey> for_torch;  // pages it was published for by --for-torch
};

// One input wheel after inspection: the facts, or why it cannot be published.
struct PublishCandidate {
  std::filesystem::path path;
  // The file as inspected, when it was read into memory (wheels up to 32 MiB,
  // within a budget): the sha256 is of these bytes, and they are what is
  // put; the file is not read again. Null: put from `path`, hashed again.
  std::shared_ptr<const binary::WheelBytes> bytes;
  // flashfit's own copy of the file, written and hashed as it was read
  // (inspect_for_publish with a stage directory): the sha256 is of its bytes,
  // inspection read it, and the put moves it into the target. Empty: none.
  std::filesystem::path staged;
  WheelFacts facts;
  std::string metadata;                // METADATA's bytes (the PEP 658 file)
  std::optional<std::string> refusal;  // inspection failed: the reason
  // A rewritten copy's temporary directory (upstream's version trap), removed
  // by the workflow once published; empty when `path` is the input itself.
  std::filesystem::path owned_dir;
};

// What a target already holds (read back from the variant sidecars).
struct PublishedWheel {
  WheelFacts facts;
  std::string metadata_sha256;  // of the <file>.metadata file
};

struct PublishOptions {
  bool replace = false;             // a different file under a published name
  std::optional<EnvKey> for_torch;  // place every input on this torch's page
};

struct Upload {
  std::filesystem::path source;                     // the wheel to copy
  std::shared_ptr<const binary::WheelBytes> bytes;  // its inspected bytes, when held
  bool copy_wheel = true;        // false: the same bytes are there, the record changes
  WheelFacts facts;              // what the sidecar records
  std::string metadata;          // <file>.metadata
  std::string sidecar;           // <file>.variant.json
  std::filesystem::path staged;  // the inspected copy to move into place, when there is one
};

struct Refusal {
  std::string filename;
  std::string reason;
};

// A file the plan writes after the wheels: relative path and content.
struct PageFile {
  std::string path;  // "simple/ffext-abi1/index.html", "torch-2.9.1+cu128.html"
  std::string content;
};

// One environment page and the wheels it lists (for reports and --list).
struct EnvPage {
  EnvKey key;
  std::string page;                   // its path in the target
  std::vector<std::string> wheels;    // file names
  std::vector<std::string> left_out;  // "file: why" for wheels of this torch not listed
};

// What a target holds besides its readable records.
struct TargetState {
  std::vector<std::string> root_files;  // names of the files at the root (env pages)
  // Wheels whose record cannot be read: the wheel's file name, and why. Such a
  // name stays taken (refused unless --replace) and the wheel is on no page
  // publish writes (its project page keeps its link only while no readable
  // wheel of the project has publish rewrite that page).
  std::vector<Refusal> unreadable;
};

struct PublishPlan {
  std::vector<Upload> uploads;
  std::vector<std::string> unchanged;  // already there with the same sha256
  std::vector<Refusal> refused;
  std::vector<PageFile> pages;  // written last
  std::vector<EnvPage> env_pages;
  std::vector<WheelFacts> published;  // the whole tree after the plan, by file name
  std::vector<std::string> problems;  // unreadable records this plan leaves as they are
};

}  // namespace flashfit::workflow
