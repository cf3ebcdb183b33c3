// A PCI device's configuration space as sysfs gives it (<device>/config), and the registers the
// doctor reads from it, at the offsets of the PCI Express Base Specification:
//   0x06 Status (bit 4: a capability list exists), 0x34 the first capability's offset; each
//   capability: ID (byte 0), next offset (byte 1). The PCI Express capability (ID 0x10): +0x02 its
//   capabilities register (bits 7:4 device/port type), +0x0C Link Capabilities (bits 3:0 maximum
//   speed, 9:4 maximum width), +0x10 Link Control (bits 1:0 ASPM), +0x12 Link Status (bits 3:0
//   current speed, 9:4 negotiated width).
//   Extended capabilities from 0x100: a 32-bit header (bits 15:0 ID, 31:20 next offset; the next
//   may point backwards, only a revisit is a loop). ACS (ID 0x000D): +0x04 ACS Capability,
//   +0x06 ACS Control.
// Linux gives a process without CAP_SYS_ADMIN only the first 64 bytes (the header, no
// capability), so most of this needs root: every reader says why it could not read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "topo/topology.hpp"

namespace arbench::doctor {

struct ConfigSpace {
  std::vector<std::uint8_t> bytes;
  std::string error;  // why the file could not be read at all (empty: it was)

  std::optional<std::uint16_t> u16(std::size_t at) const;
  std::optional<std::uint32_t> u32(std::size_t at) const;
};

// <device_dir>/config, at most 4096 bytes. Never throws.
ConfigSpace read_config_space(const std::filesystem::path& device_dir);

// ACS Control bits, lspci's names in its order (ACSCtl: SrcValid+ TransBlk- ...).
inline constexpr std::uint16_t kAcsSrcValid = 1u << 0, kAcsTransBlk = 1u << 1, kAcsReqRedir = 1u << 2,
                               kAcsCmpltRedir = 1u << 3, kAcsUpstreamFwd = 1u << 4, kAcsEgressCtrl = 1u << 5,
                               kAcsDirectTrans = 1u << 6;
// The bits that send peer-to-peer requests or completions up to the root complex (and its IOMMU)
// instead of across the bridge.
inline constexpr std::uint16_t kAcsRedirectBits = kAcsReqRedir | kAcsCmpltRedir | kAcsEgressCtrl;

// "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-".
std::string acs_flags(std::uint16_t control);

enum class Found : std::uint8_t { yes, absent, unreadable };

struct AcsReading {
  Found found = Found::unreadable;
  std::uint16_t offset = 0;   // of the capability's header; the control register is at offset + 6
  std::uint16_t control = 0;
  std::string why;            // absent or unreadable: why, with the size read
};
AcsReading read_acs(const ConfigSpace& cs);

struct PcieCapReading {
  Found found = Found::unreadable;
  std::uint8_t offset = 0;
  int port_type = -1;          // 0 endpoint, 4 root port, 5 switch upstream, 6 switch downstream, ...
  topo::LinkState max, current;
  int aspm = -1;               // Link Control bits 1:0: 0 off, 1 L0s, 2 L1, 3 L0s and L1
  std::string why;
};
PcieCapReading read_pcie_capability(const ConfigSpace& cs);

// "disabled", "L0s", "L1", "L0s L1".
const char* aspm_name(int aspm);

// An lspci -vvv block's "ACSCtl:" line as ACS Control bits; nullopt when it has none.
std::optional<std::uint16_t> parse_lspci_acsctl(const std::string& lspci_output);

}  // namespace arbench::doctor
