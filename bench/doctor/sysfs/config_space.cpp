// Reading the configuration space; offsets in config_space.hpp.
#include "doctor/sysfs/config_space.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

namespace arbench::doctor {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kStatus = 0x06, kCapPointer = 0x34, kExtendedStart = 0x100, kFullSize = 4096;
// At most one extended capability per 8 bytes above 0x100: Linux's ttl, (4096 - 256) / 8.
constexpr std::size_t kExtendedHops = (kFullSize - kExtendedStart) / 8;
constexpr std::uint8_t kPcieCapId = 0x10;
constexpr std::uint16_t kAcsCapId = 0x000D;
// The ACS Control bits 0 to 6 as lspci names them.
constexpr const char* kAcsBitNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                         "UpstreamFwd", "EgressCtrl", "DirectTrans"};

// What the size of a short read means.
std::string short_read(std::size_t size, std::size_t wanted) {
  char at[16];
  std::snprintf(at, sizeof at, "0x%zx", wanted);
  std::string why = "config space read as " + std::to_string(size) + " bytes, the register at " + at + " lies beyond";
  if (size == 64) why += " (the kernel gives the 64-byte header only to a process without root)";
  else if (size == 256) why += " (no extended config space: 256 bytes, as for a non-root read or a conventional PCI device)";
  else if (size < kFullSize) why += " (a truncated file)";
  return why;
}

// A reading that found no capability: unreadable (or absent, when the list ends without it), and why.
template <class Reading>
Reading not_found(std::string why, Found found = Found::unreadable) {
  Reading r;
  r.found = found;
  r.why = std::move(why);
  return r;
}

std::optional<double> speed_of(unsigned code) {
  constexpr double kSpeeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (code < 1 || code > 6) return std::nullopt;
  return kSpeeds[code - 1];
}

topo::LinkState link_of(std::uint16_t reg) {
  topo::LinkState s;
  s.speed_gts = speed_of(reg & 0xF);
  if (const int w = (reg >> 4) & 0x3F; w > 0) s.width = w;
  return s;
}

}  // namespace

std::optional<std::uint16_t> ConfigSpace::u16(std::size_t at) const {
  if (at + 2 > bytes.size()) return std::nullopt;
  return static_cast<std::uint16_t>(bytes[at] | (bytes[at + 1] << 8));
}

std::optional<std::uint32_t> ConfigSpace::u32(std::size_t at) const {
  if (at + 4 > bytes.size()) return std::nullopt;
  return static_cast<std::uint32_t>(bytes[at]) | static_cast<std::uint32_t>(bytes[at + 1]) << 8 |
         static_cast<std::uint32_t>(bytes[at + 2]) << 16 | static_cast<std::uint32_t>(bytes[at + 3]) << 24;
}

ConfigSpace read_config_space(const fs::path& device_dir) {
  ConfigSpace cs;
  const fs::path file = device_dir / "config";
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::error_code ec;
    cs.error = fs::exists(file, ec) ? "cannot open " + file.string() + " (permission?)" : file.string() + " is missing";
    return cs;
  }
  cs.bytes.resize(kFullSize);
  in.read(reinterpret_cast<char*>(cs.bytes.data()), static_cast<std::streamsize>(cs.bytes.size()));
  cs.bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (cs.bytes.empty()) cs.error = file.string() + " reads as empty";
  return cs;
}

std::string acs_flags(std::uint16_t c) {
  std::string out;
  for (int b = 0; b < 7; ++b) (out += out.empty() ? "" : " ") += std::string(kAcsBitNames[b]) + ((c >> b) & 1 ? "+" : "-");
  return out;
}

AcsReading read_acs(const ConfigSpace& cs) {
  if (!cs.error.empty()) return not_found<AcsReading>(cs.error);
  // Walked as Linux walks it (drivers/pci/pci.c, pci_find_next_ext_capability): any pointer at or
  // above 0x100 is followed, backward ones too (NVIDIA GPUs list 0x258 before 0x128), for at most
  // one hop per 8 bytes of extended space; a pointer to a capability already visited is a loop.
  std::vector<bool> visited(kFullSize / 4, false);
  std::size_t at = kExtendedStart;
  for (std::size_t hops = 0; hops < kExtendedHops; ++hops) {
    const auto header = cs.u32(at);
    if (!header) return not_found<AcsReading>(short_read(cs.bytes.size(), at));
    if (*header == 0 || *header == 0xFFFFFFFFu)
      return not_found<AcsReading>(hops == 0 ? "no extended capability" : "no ACS capability in the extended list",
                                   Found::absent);
    visited[at / 4] = true;
    if ((*header & 0xFFFF) == kAcsCapId) {
      const auto control = cs.u16(at + 6);
      if (!control) return not_found<AcsReading>(short_read(cs.bytes.size(), at + 6));
      AcsReading r;
      r.found = Found::yes;
      r.offset = static_cast<std::uint16_t>(at);
      r.control = *control;
      return r;
    }
    const std::size_t next = (*header >> 20) & 0xFFC;
    if (next < kExtendedStart) {  // 0 ends the list; Linux ends it at any pointer below 0x100 too
      std::string why = "no ACS capability in the extended list";
      if (next != 0) {
        char text[96];
        std::snprintf(text, sizeof text, " (it ends at 0x%zx, whose next pointer 0x%zx lies below 0x100)", at, next);
        why += text;
      }
      return not_found<AcsReading>(why, Found::absent);
    }
    if (visited[next / 4]) {
      char text[128];
      std::snprintf(text, sizeof text,
                    "the extended capability list loops: 0x%zx points to 0x%zx, visited already (a broken device?)", at,
                    next);
      return not_found<AcsReading>(text);
    }
    at = next;
  }
  char text[96];
  std::snprintf(text, sizeof text, "the extended capability list runs past %zu capabilities without ending", kExtendedHops);
  return not_found<AcsReading>(text);
}

PcieCapReading read_pcie_capability(const ConfigSpace& cs) {
  if (!cs.error.empty()) return not_found<PcieCapReading>(cs.error);
  const auto status = cs.u16(kStatus);
  const auto first = cs.u16(kCapPointer);
  if (!status || !first) return not_found<PcieCapReading>(short_read(cs.bytes.size(), kCapPointer));
  if (!(*status & 0x10)) return not_found<PcieCapReading>("no capability list", Found::absent);
  std::size_t at = *first & 0xFC;
  for (int hops = 0; at >= 0x40 && hops < 48; ++hops) {
    const auto head = cs.u16(at);
    if (!head) return not_found<PcieCapReading>(short_read(cs.bytes.size(), at));
    if ((*head & 0xFF) == kPcieCapId) {
      const auto caps = cs.u16(at + 0x02), link_cap = cs.u16(at + 0x0C), control = cs.u16(at + 0x10),
                 status_reg = cs.u16(at + 0x12);
      if (!caps || !link_cap || !control || !status_reg)
        return not_found<PcieCapReading>(short_read(cs.bytes.size(), at + 0x12));
      PcieCapReading r;
      r.found = Found::yes;
      r.offset = static_cast<std::uint8_t>(at);
      r.port_type = (*caps >> 4) & 0xF;
      r.max = link_of(*link_cap);
      r.current = link_of(*status_reg);
      r.aspm = *control & 0x3;
      return r;
    }
    at = (*head >> 8) & 0xFC;
  }
  return not_found<PcieCapReading>("no PCI Express capability", Found::absent);
}

const char* aspm_name(int aspm) {
  switch (aspm) {
    case 0: return "disabled";
    case 1: return "L0s";
    case 2: return "L1";
    case 3: return "L0s L1";
  }
  return "unknown";
}

std::optional<std::uint16_t> parse_lspci_acsctl(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find("ACSCtl:");
    if (at == std::string::npos) continue;
    std::uint16_t bits = 0;
    int seen = 0;
    std::istringstream words(line.substr(at + 7));
    for (std::string w; words >> w;) {
      if (w.size() < 2 || (w.back() != '+' && w.back() != '-')) continue;
      for (int b = 0; b < 7; ++b)
        if (w.compare(0, w.size() - 1, kAcsBitNames[b]) == 0) {
          ++seen;
          if (w.back() == '+') bits = static_cast<std::uint16_t>(bits | (1u << b));
        }
    }
    if (seen > 0) return bits;
  }
  return std::nullopt;
}

}  // namespace arbench::doctor
