// vllm-custom: vLLM's custom all-reduce, its one-stage and two-stage kernels, on arbench's peer
// memory and under arbench's clock and check. The header is vLLM's own csrc/custom_all_reduce.cuh
// from a vLLM checkout (ARBENCH_VLLM_DIR: ARBENCH_VLLM_FROM_CHECKOUT), else FlashInfer's copy of
// it (flashinfer/comm/vllm_custom_all_reduce.cuh); this is the only translation unit that includes
// either. arbench's part: each rank's Signal and temporary buffer (one zero-filled symmetric
// buffer, as vLLM's meta buffer), the input registered with every peer's pointer (RankData, one per
// input set the harness alternates), and the choice of kernel and grid (peer_policy.hpp: what
// CustomAllreduce::allreduce picks when told the GPUs are fully connected, the only way it runs on
// more than two). The kernels are launched directly, not through CustomAllreduce::allreduce: its
// graph path waits for IPC handles exchanged after capture, which arbench's peer memory makes
// unnecessary (the registered pointers are known before any op).
#if ARBENCH_VLLM_FROM_CHECKOUT
#include <custom_all_reduce.cuh>
#else
#include <flashinfer/comm/vllm_custom_all_reduce.cuh>
#endif

#include "kernels/adapter_memory.hpp"
#include "kernels/peers/peer_layout.hpp"
#include "kernels/peers/peer_policy.hpp"
#include "kernels/peers/peer_variant.hpp"

namespace arbench {
namespace {

template <typename T, int N>
void launch_stage(VllmStage stage, int blocks, cudaStream_t s, vllm::RankData* ptrs, const vllm::RankSignals& sg,
                  vllm::Signal* self, void* out, int rank, int packs) {
  if (stage == VllmStage::one)
    vllm::cross_device_reduce_1stage<T, N><<<blocks, kVllmThreads, 0, s>>>(ptrs, sg, self, static_cast<T*>(out), rank, packs);
  else
    vllm::cross_device_reduce_2stage<T, N><<<blocks, kVllmThreads, 0, s>>>(ptrs, sg, self, static_cast<T*>(out), rank, packs);
}

template <typename T>
void launch_world(int world, VllmStage stage, int blocks, cudaStream_t s, vllm::RankData* ptrs,
                  const vllm::RankSignals& sg, vllm::Signal* self, void* out, int rank, int packs) {
  switch (world) {
    case 2: return launch_stage<T, 2>(stage, blocks, s, ptrs, sg, self, out, rank, packs);
    case 4: return launch_stage<T, 4>(stage, blocks, s, ptrs, sg, self, out, rank, packs);
    case 6: return launch_stage<T, 6>(stage, blocks, s, ptrs, sg, self, out, rank, packs);
    default: return launch_stage<T, 8>(stage, blocks, s, ptrs, sg, self, out, rank, packs);
  }
}

template <typename T, int N>
const void* kernel_of(VllmStage stage) {
  return stage == VllmStage::one ? reinterpret_cast<const void*>(vllm::cross_device_reduce_1stage<T, N>)
                                 : reinterpret_cast<const void*>(vllm::cross_device_reduce_2stage<T, N>);
}

template <typename T>
const void* kernel_of(int world, VllmStage stage) {
  switch (world) {
    case 2: return kernel_of<T, 2>(stage);
    case 4: return kernel_of<T, 4>(stage);
    case 6: return kernel_of<T, 6>(stage);
    default: return kernel_of<T, 8>(stage);
  }
}

class VllmCustom final : public PeerVariant {
 public:
  explicit VllmCustom(const std::string& config) : PeerVariant(PeerKind::vllm_custom, config), forced_(parse_vllm_stage(config)) {}

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& /*f*/, const Tuning& /*t*/) const override {
    return sizeof(vllm::Signal) + vllm_tmp_bytes(c.bytes, c.world) + 2 * sizeof(vllm::RankData);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    if (!b.in) throw CaseError(std::string(name()) + ": the workload did not provide an input");
    io_ = aligned_io(b, f.world(), name());
    if (!io_.in->symmetric())
      throw CaseError(std::string(name()) + ": its input must be in peer memory (every rank reads every peer's input)");
    dtype_ = c.dtype;
    world_ = f.world();
    packs_ = int(c.bytes / 16);
    stage_ = forced_ ? *forced_ : vllm_stage(world_, c.bytes);
    blocks_ = vllm_blocks(c.bytes, t.blocks);
    // vLLM's meta buffer: a Signal, then the two-stage kernel's temporary buffer (get_tmp_buf);
    // zero-filled, as the barriers' counters start.
    meta_ = f.alloc(sizeof(vllm::Signal) + vllm_tmp_bytes(c.bytes, world_), Placement::symmetric);
    sets_ = io_.in->alternatives();
    rank_data_ = f.alloc(sets_.size() * sizeof(vllm::RankData), Placement::local);
    signals_.assign(std::size_t(world_), vllm::RankSignals{});
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;
      std::vector<vllm::RankData> data(sets_.size());
      for (std::size_t s = 0; s < sets_.size(); ++s) {
        const auto ptrs = vllm_rank_data(*sets_[s], r, world_);
        for (int p = 0; p < 8; ++p) data[s].ptrs[p] = ptrs[std::size_t(p)];
      }
      f.upload(r, rank_data_->local(r), data.data(), data.size() * sizeof(vllm::RankData));
      const auto sig = vllm_signal_table(*meta_, r, world_);
      for (int p = 0; p < 8; ++p) signals_[std::size_t(r)].signals[p] = static_cast<vllm::Signal*>(sig[std::size_t(p)]);
    }
  }

  void launch(int rank, Stream stream) override {
    const int slot = vllm_input_slot(*io_.in, rank);
    if (slot < 0)
      throw CaseError(std::string(name()) + ": rank " + std::to_string(rank) +
                      "'s input is not one of the buffers registered in prepare()");
    auto* ptrs = static_cast<vllm::RankData*>(rank_data_->local(rank)) + slot;
    auto* self = static_cast<vllm::Signal*>(meta_->local(rank));
    const auto s = static_cast<cudaStream_t>(stream);
    if (dtype_ == DType::bf16)
      launch_world<nv_bfloat16>(world_, stage_, blocks_, s, ptrs, signals_[std::size_t(rank)], self, io_.out->local(rank),
                                rank, packs_);
    else
      launch_world<half>(world_, stage_, blocks_, s, ptrs, signals_[std::size_t(rank)], self, io_.out->local(rank), rank,
                         packs_);
    check_launch(cudaGetLastError(), "launching vLLM's kernel");
  }

  // Every rank reads every peer's input: the harness puts the case's buffers in peer memory.
  Placement buffer_placement() const override { return Placement::symmetric; }
  SmUse sms(const Case& /*c*/, const Fabric& /*f*/) const override { return {blocks_, kSmsGrid}; }

 protected:
  Support limits(const Case& c, const Fabric& /*f*/, const Tuning& t) const override {
    if (Support s = vllm_limits(c, forced_); !s.ok) return s;
    if (const int blocks = vllm_blocks(c.bytes, t.blocks); blocks > vllm::kMaxBlocks)
      return Support::no(std::string(name()) + " has signal slots for " + std::to_string(vllm::kMaxBlocks) +
                         " blocks (--blocks " + std::to_string(blocks) + ")");
    return Support::yes();
  }

  Support fits_device(const Case& c, const Fabric& f, const Tuning& t) const override {
    if (f.ranks_per_device() <= 1) return Support::yes();
    const VllmStage stage = forced_ ? *forced_ : vllm_stage(c.world, c.bytes);
    const int blocks = vllm_blocks(c.bytes, t.blocks);
    const void* k = c.dtype == DType::bf16 ? kernel_of<nv_bfloat16>(c.world, stage) : kernel_of<half>(c.world, stage);
    return resident_or_why(f, blocks, resident_blocks(f, k, kVllmThreads),
                           std::to_string(blocks) + " blocks of " + std::to_string(kVllmThreads) + " threads");
  }

  std::vector<std::pair<std::string, std::string>> launch_settings() const override {
    return {{"kernel", vllm_stage_name(stage_)},
            {"chosen_by", forced_ ? "forced (configuration)" : "vLLM's size rule, told the GPUs are fully connected"},
            {"blocks", std::to_string(blocks_)},
            {"threads", std::to_string(kVllmThreads)},
            {"registered_inputs", std::to_string(sets_.size())}};
  }

 private:
  std::optional<VllmStage> forced_;
  ReduceIo io_;
  DType dtype_ = DType::bf16;
  int world_ = 2, packs_ = 0, blocks_ = 1;
  VllmStage stage_ = VllmStage::one;
  std::unique_ptr<RankBuffers> meta_, rank_data_;
  std::vector<const RankBuffers*> sets_;
  std::vector<vllm::RankSignals> signals_;
};

}  // namespace

std::unique_ptr<Variant> make_vllm_custom(const std::string& config) { return std::make_unique<VllmCustom>(config); }

}  // namespace arbench
