// The peers built into this arbench: other projects' kernels compiled from the copy the user had at
// configure time (docs/variants.md, "Peers"). Defined by a source cmake/ArbenchPeers.cmake writes
// into the build folder, so that provenance, `arbench --version` and `arbench list` say what was
// built, from where, and why a peer was not.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace arbench {

// One header compiled into a peer, relative to its copy's include folder.
struct PeerHeader {
  std::string path;
  std::string sha256;
};

// One copy of another project's code arbench was built against.
struct PeerSource {
  std::string project;  // "FlashInfer", "vLLM"
  std::string origin;   // "checkout DIR", "wheel DIR (python3.12 (...))", "package DIR", "download URL"
  std::string version;  // "0.6.18", or "unknown"
  std::string commit;   // the full hash where known, else ""
  std::vector<PeerHeader> headers;
};

struct PeerBuild {
  std::vector<PeerSource> sources;
  // Every peer variant: its name and why it is not built ("" when it is).
  std::vector<std::pair<std::string, std::string>> variants;
  std::string off_reason;  // no peer built: why, and how to build them ("" when any is)
  std::string vllm_from;   // where vllm-custom's header came from
  // Why `variant` (a base name) is not built; "" when it is, or when it is no peer.
  std::string why_not(const std::string& variant) const {
    for (const auto& [name, why] : variants)
      if (name == variant) return why;
    return {};
  }
  bool built(const std::string& variant) const {
    for (const auto& [name, why] : variants)
      if (name == variant) return why.empty();
    return false;
  }
};

const PeerBuild& peer_build();

// "FlashInfer 0.6.18 fb28d7242b35" (the commit's first 12 digits where known), then
// " (checkout DIR)" when `with_origin`.
inline std::string peer_source_text(const PeerSource& s, bool with_origin) {
  return s.project + " " + s.version + (s.commit.empty() ? std::string() : " " + s.commit.substr(0, 12)) +
         (with_origin ? " (" + s.origin + ")" : std::string());
}

}  // namespace arbench
