// flashinfer-fused: FlashInfer's fused all-reduce + residual add + RMSNorm
// (flashinfer/comm/trtllm_allreduce_fusion.cuh, from the copy found at configure time), the
// kARResidualRMSNorm pattern only, on arbench's peer memory and under arbench's clock and fp64
// check. The only translation unit that includes that header (it defines functions that are not
// inline). Compiled with --expt-relaxed-constexpr and <array> first (the header indexes a
// std::array in a kernel and does not include <array>); FlashInfer's logging header is kept out
// (its include guard defined first: the fusion header logs nothing, and it would pull in spdlog).
// Only the one pattern is instantiated: the FP4 patterns' conversions exist only for compute_120f,
// which a plain sm_120 build does not target.
#include <array>
#define FLASHINFER_LOGGING_H_
#include <flashinfer/comm/trtllm_allreduce_fusion.cuh>

#include <algorithm>
#include <cstring>

#include "kernels/adapter_memory.hpp"
#include "kernels/peers/peer_layout.hpp"
#include "kernels/peers/peer_policy.hpp"
#include "kernels/peers/peer_variant.hpp"

namespace fa = flashinfer::trtllm_allreduce_fusion;

namespace arbench {
namespace {

constexpr fa::AllReduceFusionPattern kPattern = fa::AllReduceFusionPattern::kARResidualRMSNorm;

// FlashInfer's launcher for one dtype and rank count, with fp32 accumulation (fp32_acc=True, as
// vLLM's fusion pass calls it) and programmatic dependent launch where the configuration has it.
template <typename T>
cudaError_t launch_fusion(const fa::AllReduceFusionParams<T>& p, bool pdl) {
  switch (p.nranks) {
    case 2: return fa::allreduce_fusion_kernel_launcher<kPattern, T, 2, true>(p, pdl);
    case 4: return fa::allreduce_fusion_kernel_launcher<kPattern, T, 4, true>(p, pdl);
    case 8: return fa::allreduce_fusion_kernel_launcher<kPattern, T, 8, true>(p, pdl);
    default: return cudaErrorInvalidValue;
  }
}

// The kernel the launcher will run (for the residency check on the single-GPU fabric).
template <typename T>
const void* kernel_of(int world, FusionShot shot) {
  const auto pick = [shot](auto one, auto two) {
    return shot == FusionShot::oneshot ? reinterpret_cast<const void*>(one) : reinterpret_cast<const void*>(two);
  };
  switch (world) {
    case 2: return pick(fa::allreduce_fusion_kernel_oneshot_lamport<kPattern, T, 2, true, true>,
                        fa::allreduce_fusion_kernel_twoshot_sync<kPattern, T, 2, true>);
    case 4: return pick(fa::allreduce_fusion_kernel_oneshot_lamport<kPattern, T, 4, true, true>,
                        fa::allreduce_fusion_kernel_twoshot_sync<kPattern, T, 4, true>);
    default: return pick(fa::allreduce_fusion_kernel_oneshot_lamport<kPattern, T, 8, true, true>,
                         fa::allreduce_fusion_kernel_twoshot_sync<kPattern, T, 8, true>);
  }
}

class FlashinferFusion final : public PeerVariant {
 public:
  explicit FlashinferFusion(const std::string& config)
      : PeerVariant(PeerKind::fusion, config) {}

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& f, const Tuning& /*t*/) const override {
    const FusionSizes s = fusion_sizes(f.world(), c.tokens, c.hidden, int(dtype_size(c.dtype)));
    return s.buffer + s.flags + s.lamport + 32 + std::size_t(3 * f.world() + 1) * sizeof(void*);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    if (!b.in || !b.residual || !b.weight || !b.norm_out || !b.residual_out)
      throw CaseError(std::string(name()) + ": the workload did not provide x, residual, weight, norm_out and residual_out");
    bufs_ = b;
    dtype_ = c.dtype;
    world_ = f.world();
    tokens_ = c.tokens;
    hidden_ = c.hidden;
    eps_ = static_cast<float>(t.eps);
    const int elem = int(dtype_size(c.dtype));
    cc_ = capability(f);
    launch_ = launch_of(c, cc_);
    sizes_ = fusion_sizes(world_, tokens_, hidden_, elem);
    buffer_ = f.alloc(sizes_.buffer, Placement::symmetric);
    flags_ = f.alloc(sizes_.flags, Placement::symmetric);  // zero-filled, as FlashInfer starts them
    lamport_ = f.alloc(sizes_.lamport, Placement::symmetric);
    word_ = f.alloc(32, Placement::local);
    table_ = f.alloc(std::size_t(3 * world_ + 1) * sizeof(void*), Placement::local);
    const auto word = fusion_flag_word(sizes_);
    // Every Lamport element starts as -0.0, "not yet written" (FlashInfer's lamport_initialize).
    constexpr std::size_t kChunk = 4u << 20;
    const std::vector<std::uint16_t> neg_zero(kChunk / 2, 0x8000u);
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;
      f.upload(r, word_->local(r), word.data(), sizeof word);
      const std::vector<void*> table = fusion_workspace_table(*buffer_, *flags_, *lamport_, word_->local(r), r, world_);
      f.upload(r, table_->local(r), table.data(), table.size() * sizeof(void*));
      auto* dst = static_cast<char*>(lamport_->local(r));
      for (std::size_t at = 0; at < sizes_.lamport; at += kChunk)
        f.upload(r, dst + at, neg_zero.data(), std::min(kChunk, sizes_.lamport - at));
    }
  }

  void launch(int rank, Stream stream) override {
    try {
      const cudaError_t e = dtype_ == DType::bf16 ? launch_fusion(params<nv_bfloat16>(rank, stream), launch_.pdl)
                                                  : launch_fusion(params<half>(rank, stream), launch_.pdl);
      check_launch(e, "FlashInfer's allreduce_fusion_kernel_launcher");
    } catch (const flashinfer::Error& e) {  // its FLASHINFER_CHECKs
      throw CaseError(std::string(name()) + ": FlashInfer refused the launch: " + e.what());
    }
  }

  Placement buffer_placement() const override { return Placement::local; }  // peers meet in the workspace

 protected:
  Support limits(const Case& c, const Fabric& f, const Tuning& /*t*/) const override {
    if (c.family != Family::allreduce_rmsnorm || c.tokens < 1 || c.hidden < 1) return fusion_limits(c, std::nullopt);
    return fusion_limits(c, launch_of(c, capability(f)).shot);
  }

  // The grid FlashInfer's launcher gives case `c` on the device of `f` (fusion_grid with that
  // device's figures, as the launcher reads them), and the kernel it launches.
  std::pair<FusionGrid, const void*> device_grid(const Case& c, const Fabric& f) const {
    const int elem = int(dtype_size(c.dtype));
    const FusionShot shot = launch_of(c, capability(f)).shot;
    const void* k = c.dtype == DType::bf16 ? kernel_of<nv_bfloat16>(c.world, shot) : kernel_of<half>(c.world, shot);
    int current = 0, sms = 0, regs_per_block = 0, max_cluster = 1;
    ARB_CUDA_CHECK(cudaGetDevice(&current));
    ARB_CUDA_CHECK(cudaSetDevice(f.device_of(0)));
    cudaFuncAttributes attr{};
    ARB_CUDA_CHECK(cudaFuncGetAttributes(&attr, k));
    ARB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, f.device_of(0)));
    ARB_CUDA_CHECK(cudaDeviceGetAttribute(&regs_per_block, cudaDevAttrMaxRegistersPerBlock, f.device_of(0)));
    max_cluster = flashinfer::GetMaxClusterSize(k, 128);
    ARB_CUDA_CHECK(cudaSetDevice(current));
    const int max_block = std::min(regs_per_block / std::max(1, attr.numRegs), 1024);
    return {fusion_grid(c.world, c.tokens, c.hidden, elem, shot, sms, max_cluster, max_block), k};
  }

  SmUse sms(const Case& c, const Fabric& f) const override { return {device_grid(c, f).first.grid, kSmsGrid}; }

  Support fits_device(const Case& c, const Fabric& f, const Tuning& /*t*/) const override {
    if (f.ranks_per_device() <= 1) return Support::yes();
    const auto [g, k] = device_grid(c, f);
    int current = 0, clusters = 0;
    ARB_CUDA_CHECK(cudaGetDevice(&current));
    ARB_CUDA_CHECK(cudaSetDevice(f.device_of(0)));
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = unsigned(g.cluster);
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    cfg.gridDim = dim3(unsigned(g.grid));
    cfg.blockDim = dim3(unsigned(g.block));
    cfg.attrs = &cluster;
    cfg.numAttrs = 1;
    const cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, k, &cfg);
    ARB_CUDA_CHECK(cudaSetDevice(current));
    ARB_CUDA_CHECK(e);
    return resident_or_why(f, g.grid, clusters * g.cluster,
                           std::to_string(g.grid) + " blocks of " + std::to_string(g.block) + " threads in clusters of " +
                               std::to_string(g.cluster));
  }

  std::vector<std::pair<std::string, std::string>> launch_settings() const override {
    return {{"kernel", fusion_shot_name(launch_.shot)},
            {"chosen_by", fusion_rule_text(launch_.rule, cc_)},
            {"capability", std::to_string(cc_ / 10) + "." + std::to_string(cc_ % 10)},
            {"pattern", "kARResidualRMSNorm"},
            {"fp32_acc", "true"},
            {"pdl", launch_.pdl ? "on" : "off"},
            {"trigger_completion_at_end", launch_.trigger_at_end ? "true" : "false"},
            {"lamport_bytes_per_rank", std::to_string(sizes_.lamport)}};
  }

 private:
  template <typename T>
  fa::AllReduceFusionParams<T> params(int rank, Stream stream) const {
    fa::AllReduceFusionParams<T> p{};
    p.nranks = world_;
    p.rank = rank;
    p.size = tokens_ * hidden_;
    p.hidden_dim = hidden_;
    p.workspace = static_cast<void**>(table_->local(rank));
    p.allreduce_in = bufs_.in->local(rank);
    p.allreduce_out = nullptr;  // the pattern writes residual_out and norm_out
    p.residual_in = bufs_.residual->local(rank);
    p.residual_out = bufs_.residual_out->local(rank);
    p.norm_out = bufs_.norm_out->local(rank);
    p.quant_out = nullptr;
    p.scale_out = nullptr;
    p.rms_gamma = bufs_.weight->local(rank);
    p.rms_eps = eps_;
    p.weight_bias = 0.f;  // standard RMSNorm: gamma x x / rms
    p.scale_factor = nullptr;
    p.use_oneshot = launch_.shot == FusionShot::oneshot;
    p.stream = static_cast<cudaStream_t>(stream);
    p.pattern = kPattern;
    p.trigger_completion_at_end = launch_.trigger_at_end;
    return p;
  }

  // The launch of this configuration for `c` on GPUs of capability `cc` (peer_policy.hpp).
  FusionLaunch launch_of(const Case& c, int cc) const {
    const auto l = fusion_launch(config_, cc, c.world, c.tokens, c.hidden, int(dtype_size(c.dtype)));
    if (!l) throw CaseError(std::string(name()) + ": unknown configuration '" + config_ + "'");
    return *l;
  }

  FusionLaunch launch_;
  int cc_ = 0;
  OpBuffers bufs_;
  DType dtype_ = DType::bf16;
  int world_ = 2, tokens_ = 0, hidden_ = 0;
  float eps_ = 1e-6f;
  FusionSizes sizes_;
  std::unique_ptr<RankBuffers> buffer_, flags_, lamport_, word_, table_;
};

}  // namespace

std::unique_ptr<Variant> make_flashinfer_fusion(const std::string& config) {
  return std::make_unique<FlashinferFusion>(config);
}

}  // namespace arbench
