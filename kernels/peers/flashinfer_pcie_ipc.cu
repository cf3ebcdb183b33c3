// flashinfer-pcie-ipc: FlashInfer's PCIe-IPC all-reduce (flashinfer/comm/pcie_ipc_all_reduce.cuh,
// from the copy found at configure time), on arbench's peer memory and under arbench's clock and
// check. The only translation unit that includes that header (it defines functions that are not
// inline). arbench's part: the slab (FlashInfer's compute_workspace_layout, one zero-filled
// symmetric buffer per rank instead of an IPC-shared allocation), the table of every peer's slab
// address (peer_layout.hpp) that FlashInfer's make_peer_views turns into its views, and the launch
// FlashInfer's seed picks or the configuration forces (peer_policy.hpp); FlashInfer's all_reduce
// launches its kernel. Its sentinel kernels send a zero as -0.0: signed_zeros() is false.
#include <flashinfer/comm/pcie_ipc_all_reduce.cuh>

#include "kernels/adapter_memory.hpp"
#include "kernels/peers/peer_layout.hpp"
#include "kernels/peers/peer_policy.hpp"
#include "kernels/peers/peer_variant.hpp"

namespace fi = flashinfer::comm::pcie_ipc;

namespace arbench {
namespace {

fi::Variant fi_variant(PcieIpcSchedule s) {
  switch (s) {
    case PcieIpcSchedule::unstaged: return fi::Variant::kUnstaged;
    case PcieIpcSchedule::staged: return fi::Variant::kStaged;
    case PcieIpcSchedule::staged_ring: return fi::Variant::kStagedRing;
    case PcieIpcSchedule::flat_staged: return fi::Variant::kFlatStaged;
  }
  return fi::Variant::kUnstaged;
}

// The kernel FlashInfer's all_reduce launches for (world, schedule), without PDL (its selection
// table in pcie_ipc_all_reduce.cuh): for the residency check on the single-GPU fabric.
template <typename T>
const void* kernel_of(int world, PcieIpcSchedule s) {
  const bool staged = s == PcieIpcSchedule::staged;
  if (world == 2)
    return staged ? reinterpret_cast<const void*>(fi::ipc_tp2_remote_push_kernel<T, true, false>)
                  : reinterpret_cast<const void*>(fi::ipc_tp2_remote_push_kernel<T, false, false>);
  if (world == 8) {
    switch (s) {
      case PcieIpcSchedule::unstaged: return reinterpret_cast<const void*>(fi::ipc_topo_rsag8_push_param_kernel<T, false>);
      case PcieIpcSchedule::staged: return reinterpret_cast<const void*>(fi::ipc_topo_rsag8_block_param_kernel<T, false>);
      case PcieIpcSchedule::staged_ring:
        return reinterpret_cast<const void*>(fi::ipc_topo_rsag8_ring_push_param_kernel<T, false>);
      case PcieIpcSchedule::flat_staged: return reinterpret_cast<const void*>(fi::ipc_rsag_push_param_kernel<T, 8, false>);
    }
  }
  switch (s) {
    case PcieIpcSchedule::staged: return reinterpret_cast<const void*>(fi::ipc_rsag_push_param_kernel<T, 4, false>);
    case PcieIpcSchedule::staged_ring: return reinterpret_cast<const void*>(fi::ipc_rsag_ring_push_param_kernel<T, 4, false>);
    default: return reinterpret_cast<const void*>(fi::push_oneshot_param_kernel<T, 4, false, false>);
  }
}

class FlashinferPcieIpc final : public PeerVariant {
 public:
  explicit FlashinferPcieIpc(const std::string& config)
      : PeerVariant(PeerKind::pcie_ipc, config), forced_(parse_pcie_ipc_schedule(config)) {}

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& /*f*/, const Tuning& t) const override {
    const int elem = int(dtype_size(c.dtype));
    const PcieIpcWorkspace ws = pcie_ipc_workspace(c.elements(), t.peer_workspace_bytes, elem);
    return static_cast<std::size_t>(fi::workspace_size(c.world, ws.max_numel, elem, kPcieIpcMaxBlocks));
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    if (!b.in) throw CaseError(std::string(name()) + ": the workload did not provide an input");
    io_ = aligned_io(b, f.world(), name());
    dtype_ = c.dtype;
    world_ = f.world();
    numel_ = static_cast<std::int64_t>(c.elements());
    const int elem = int(dtype_size(c.dtype));
    launch_ = pcie_ipc_launch(forced_, world_, c.elements(), elem, t.blocks);
    // max_numel as the engine sizes it (peer_policy.hpp): FlashInfer places the epoch halves
    // world x max_numel apart, so the case runs with the engine's spacing, not its own.
    workspace_ = pcie_ipc_workspace(c.elements(), t.peer_workspace_bytes, elem);
    layout_ = fi::compute_workspace_layout(world_, workspace_.max_numel, elem, kPcieIpcMaxBlocks);
    // Zero-filled (Fabric::alloc): +0.0 is the sentinel kernels' "not yet written", and FlashInfer
    // zeroes the slab once, before the first collective, as this does.
    slab_ = f.alloc(layout_.total_bytes, Placement::symmetric);
    views_.assign(std::size_t(world_), fi::PeerViews{});
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;
      const auto table = pcie_ipc_slab_table(*slab_, r, world_);
      views_[std::size_t(r)] = fi::make_peer_views(table.data(), world_, r, layout_);
    }
  }

  void launch(int rank, Stream stream) override {
    const auto s = static_cast<cudaStream_t>(stream);
    const fi::PeerViews& v = views_[std::size_t(rank)];
    const fi::Variant algo = fi_variant(launch_.schedule);
    cudaError_t e;
    if (dtype_ == DType::bf16)
      e = fi::all_reduce<nv_bfloat16>(static_cast<const nv_bfloat16*>(io_.in->local(rank)),
                                      static_cast<nv_bfloat16*>(io_.out->local(rank)), numel_, v, rank, world_,
                                      kPcieIpcMaxBlocks, workspace_.max_numel, launch_.blocks, launch_.threads, algo,
                                      false, s);
    else
      e = fi::all_reduce<half>(static_cast<const half*>(io_.in->local(rank)), static_cast<half*>(io_.out->local(rank)),
                               numel_, v, rank, world_, kPcieIpcMaxBlocks, workspace_.max_numel, launch_.blocks,
                               launch_.threads, algo, false, s);
    check_launch(e, "FlashInfer's all_reduce");
  }

  Placement buffer_placement() const override { return Placement::local; }  // peers meet in the slab
  SmUse sms(const Case& /*c*/, const Fabric& /*f*/) const override { return {launch_.blocks, kSmsGrid}; }
  bool signed_zeros() const override { return false; }

 protected:
  Support limits(const Case& c, const Fabric& /*f*/, const Tuning& t) const override {
    return pcie_ipc_limits(c, forced_, t.blocks, t.peer_workspace_bytes);
  }

  Support fits_device(const Case& c, const Fabric& f, const Tuning& t) const override {
    if (f.ranks_per_device() <= 1) return Support::yes();
    const PcieIpcLaunch l = pcie_ipc_launch(forced_, c.world, c.elements(), int(dtype_size(c.dtype)), t.blocks);
    const void* k = c.dtype == DType::bf16 ? kernel_of<nv_bfloat16>(c.world, l.schedule) : kernel_of<half>(c.world, l.schedule);
    return resident_or_why(f, l.blocks, resident_blocks(f, k, l.threads),
                           std::to_string(l.blocks) + " blocks of " + std::to_string(l.threads) + " threads");
  }

  std::vector<std::pair<std::string, std::string>> launch_settings() const override {
    return {{"schedule", kPcieIpcScheduleNames[int(launch_.schedule)]},
            {"chosen_by", forced_ ? "forced (configuration)" : "FlashInfer's seed (untuned)"},
            {"blocks", std::to_string(launch_.blocks)},
            {"threads", std::to_string(launch_.threads)},
            {"pdl", "off"},
            {"workspace_bytes_per_rank", std::to_string(layout_.total_bytes)},
            {"workspace_max_numel", std::to_string(workspace_.max_numel)},
            {"workspace_sized_by", workspace_.engine_sized ? "the engine's largest batch (--peer-workspace)"
                                                           : "the case (larger than --peer-workspace)"}};
  }

 private:
  std::optional<PcieIpcSchedule> forced_;
  ReduceIo io_;
  DType dtype_ = DType::bf16;
  int world_ = 2;
  std::int64_t numel_ = 0;
  PcieIpcLaunch launch_;
  PcieIpcWorkspace workspace_;
  fi::WorkspaceLayout layout_{};
  std::unique_ptr<RankBuffers> slab_;
  std::vector<fi::PeerViews> views_;
};

}  // namespace

std::unique_ptr<Variant> make_flashinfer_pcie_ipc(const std::string& config) {
  return std::make_unique<FlashinferPcieIpc>(config);
}

}  // namespace arbench
