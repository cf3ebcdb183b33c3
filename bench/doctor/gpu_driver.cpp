// The BAR1 check (each GPU's BAR1 from sysfs <device>/resource, line 1 = BAR1: start, end, flags)
// and the driver check (version, open or proprietary module, persistence mode, nvidia_uvm's
// uvm_disable_hmm).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "doctor/sysfs/box.hpp"
#include "doctor/checks.hpp"

namespace arbench::doctor {
namespace {

constexpr unsigned long long kGiB = 1ull << 30;

// BAR1's size from <device>/resource; nullopt when unreadable or unassigned.
std::optional<unsigned long long> bar1_from_sysfs(const std::filesystem::path& dev) {
  std::ifstream in(dev / "resource");
  std::string line;
  for (int i = 0; i < 2; ++i)
    if (!std::getline(in, line)) return std::nullopt;
  std::istringstream words(line);
  std::string start, end;
  if (!(words >> start >> end)) return std::nullopt;
  const unsigned long long s = std::strtoull(start.c_str(), nullptr, 16), e = std::strtoull(end.c_str(), nullptr, 16);
  if (e <= s) return std::nullopt;
  return e - s + 1;
}

}  // namespace

Check check_bar1(const Inputs& in) {
  Check c("bar1", "BAR1 size",
          "Peer-to-peer mappings of a GPU's memory go through its BAR1: with a BAR1 smaller than the memory (Resizable "
          "BAR off), large P2P buffers (NCCL's windows, IPC handles) fail to map or fall back to host memory.");
  c.data["gpus"] = nlohmann::json::array();
  int small = 0;
  for (std::size_t i = 0; i < in.topo.gpus.size(); ++i) {
    const std::string& bdf = in.topo.gpus[i].bus_id;
    const auto nv = in.nvml.gpus.find(bdf);
    std::optional<unsigned long long> bar1 = bar1_from_sysfs(device_dir(in.root, bdf));
    std::string source = "sysfs";
    if (!bar1 && nv != in.nvml.gpus.end() && nv->second.bar1_bytes) {
      bar1 = *nv->second.bar1_bytes;
      source = "NVML";
    }
    const std::optional<unsigned long long> memory =
        nv != in.nvml.gpus.end() ? nv->second.memory_bytes : std::optional<std::uint64_t>();
    c.data["gpus"].push_back({{"bus_id", bdf}, {"bar1_bytes", bar1 ? nlohmann::json(*bar1) : nlohmann::json()},
                              {"memory_bytes", memory ? nlohmann::json(*memory) : nlohmann::json()}});
    const std::string subject = gpu_label(int(i)) + " " + bdf;
    if (!bar1) {
      c.add(subject, Verdict::unknown, "BAR1 unreadable (" + (device_dir(in.root, bdf) / "resource").string() +
                                           ", and NVML " + (in.nvml.loaded ? "did not say" : "not loaded") + ")");
      continue;
    }
    const bool too_small = memory ? *bar1 < *memory : *bar1 < kGiB;
    small += too_small ? 1 : 0;
    c.add(subject, too_small ? Verdict::slows : Verdict::ok,
          "BAR1 " + bytes_text(*bar1) + " (" + source + ")" +
              (memory ? ", memory " + bytes_text(*memory) : std::string(", memory unknown: judged against 1 GiB")),
          too_small ? "turn on Above 4G Decoding and Resizable BAR in the BIOS (BAR1 then covers the memory)" : "");
  }
  c.summary = std::to_string(small) + " of " + std::to_string(in.topo.gpus.size()) + " GPUs with a BAR1 smaller than needed";
  if (in.topo.gpus.empty()) {
    c.add("GPUs", Verdict::unknown, "no NVIDIA GPU found");
    c.summary = c.items.back().read;
  }
  return c;
}

Check check_driver(const Inputs& in) {
  Check c("driver", "Driver",
          "The driver decides P2P and its version is what known-bad entries match; persistence mode keeps the GPUs "
          "initialised between processes; nvidia_uvm's HMM is where one known CUDA initialisation failure lies.");
  const auto module_version = read_text(in.root / "sys/module/nvidia/version");
  const auto proc = read_text(in.root / "proc/driver/nvidia/version");
  std::optional<std::string> version = module_version ? module_version : in.nvml.driver_version;
  const std::string kind = !proc ? "module kind unknown"
                           : proc->find("Open Kernel Module") != std::string::npos ? "open kernel module"
                                                                                   : "proprietary kernel module";
  c.add("NVIDIA driver", version ? Verdict::ok : Verdict::unknown,
        version ? *version + " (" + kind + ")" : "not loaded (no " + (in.root / "sys/module/nvidia/version").string() + ")");
  for (std::size_t i = 0; i < in.topo.gpus.size(); ++i) {
    const auto nv = in.nvml.gpus.find(in.topo.gpus[i].bus_id);
    const auto pm = nv != in.nvml.gpus.end() ? nv->second.persistence : std::nullopt;
    c.add(gpu_label(int(i)) + " persistence mode", pm ? Verdict::ok : Verdict::unknown,
          !pm   ? std::string(in.nvml.loaded ? "NVML did not say" : "NVML not loaded")
          : *pm ? "on"
                : "off: every process that starts initialises the GPU again (seconds)",
          pm && !*pm ? "sudo nvidia-smi -pm 1 (or run nvidia-persistenced)" : "");
  }
  const auto hmm = module_parameter(in.root, "nvidia_uvm", "uvm_disable_hmm");
  const bool hmm_off = hmm && (*hmm == "Y" || *hmm == "1");
  c.add("nvidia_uvm uvm_disable_hmm", hmm ? Verdict::ok : Verdict::unknown,
        !hmm      ? "unreadable (nvidia_uvm not loaded)"
        : hmm_off ? *hmm + ": HMM off"
                  : *hmm + ": HMM on; if CUDA fails to initialise and dmesg shows request_free_mem_region() err -34, that "
                           "is CUDA 13.2's known issue with HMM on kernels with KASLR",
        hmm && !hmm_off ? "only on that failure: options nvidia_uvm uvm_disable_hmm=1 in /etc/modprobe.d/uvm.conf, then "
                          "reload nvidia_uvm"
                        : "");
  c.data = {{"version", version ? nlohmann::json(*version) : nlohmann::json()}, {"kind", kind},
            {"uvm_disable_hmm", hmm ? nlohmann::json(*hmm) : nlohmann::json()}};
  c.summary = (version ? "driver " + *version : std::string("no driver loaded")) +
              "; uvm_disable_hmm " + (hmm ? *hmm : std::string("unknown"));
  return c;
}

}  // namespace arbench::doctor
