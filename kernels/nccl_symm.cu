// `nccl-symm`: ncclAllReduce whose input and output live in NCCL symmetric windows
// (ncclMemAlloc + ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC), done by the cuda fabric's
// Fabric::alloc(bytes, Placement::symmetric)). With both buffers registered, NCCL 2.28 may pick
// its built-in symmetric kernels (one-shot / two-shot style kernels that load and store peer
// memory directly, instead of the proxy- and FIFO-driven ring/tree paths). NCCL still decides per
// call; where its symmetric kernels do not apply (size, dtype, topology) it falls back silently,
// which is exactly what an engine using symmetric windows would get.
// Requirements: the cuda fabric (one GPU per rank; NCCL forbids two ranks on one GPU), NCCL
// >= 2.28, and symmetric memory support (the fabric probes ncclDevCommCreate and P2P; its reason
// is shown as the skip reason otherwise).
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/nccl_api.hpp"
#include "kernels/nccl_symm.hpp"

namespace arbench {
namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::bf16: return ncclBfloat16;
    case DType::fp16: return ncclFloat16;
    default: return ncclFloat32;
  }
}

class NcclSymm final : public Variant {
 public:
  Support supports(const Case& c, const Fabric& f) const override {
    if (c.family != Family::allreduce) return Support::no("nccl-symm is an allreduce");
    if (f.backend() != Backend::cuda || f.nccl_comm(0) == nullptr)
      return Support::no("nccl-symm needs one real GPU per rank (NCCL forbids two ranks on one GPU); "
                         "use --backend cuda");
    if (std::string why = f.symmetric_unsupported_reason(); !why.empty()) return Support::no(why);
    return Support::yes();
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning&) override {
    const RankBuffers* out = b.out != nullptr ? b.out : b.in;
    if (!b.in->symmetric() || !out->symmetric())
      throw CaseError("nccl-symm: the harness gave it non-symmetric buffers; it needs "
                      "Placement::symmetric (NCCL windows) for input and output");
    api_ = &NcclApi::get();
    count_ = c.elements();
    type_ = nccl_type(c.dtype);
    for (int r = 0; r < f.world(); ++r) {
      comm_[r] = static_cast<ncclComm_t>(f.nccl_comm(r));
      in_[r] = b.in->local(r);
      out_[r] = out->local(r);
    }
  }

  void launch(int rank, Stream stream) override {
    ARB_NCCL_CHECK(*api_, AllReduce(in_[rank], out_[rank], count_, type_, ncclSum, comm_[rank],
                                    static_cast<cudaStream_t>(stream)));
  }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    std::vector<std::pair<std::string, std::string>> s = {
        {"buffers", "ncclMemAlloc + ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC)"}};
    for (const char* k : {"NCCL_ALGO", "NCCL_PROTO"}) {
      const char* v = std::getenv(k);
      s.push_back({k, v != nullptr ? v : "(NCCL's choice)"});
    }
    return s;
  }
  Placement buffer_placement() const override { return Placement::symmetric; }

 private:
  const NcclApi* api_ = nullptr;
  std::size_t count_ = 0;
  ncclDataType_t type_ = ncclBfloat16;
  ncclComm_t comm_[kMaxRanks] = {};
  void* in_[kMaxRanks] = {};
  void* out_[kMaxRanks] = {};
};

}  // namespace

VariantEntry nccl_symm_entry() {
  VariantEntry e;
  e.name = "nccl-symm";
  e.family = Family::allreduce;
  e.summary = "ncclAllReduce on NCCL symmetric windows (NCCL's built-in symmetric kernels)";
  e.gpu = [] { return std::make_unique<NcclSymm>(); };
  e.no_host_reason = "NCCL needs GPUs; the host backend runs CPU twins only";
  return e;
}

}  // namespace arbench
