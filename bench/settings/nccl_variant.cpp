// Parsing NCCL variant names; see nccl_variant.hpp.
#include "settings/nccl_variant.hpp"

#include "arbench/tuner/tuner_table.hpp"

namespace arbench {

std::optional<NcclVariant> parse_nccl_variant(const std::string& v) {
  if (v == "nccl") return NcclVariant{};
  if (v == "nccl-symm") return NcclVariant{NcclVariant::symm};
  if (v == "nccl[tuned]") return NcclVariant{NcclVariant::tuned};
  if (v.rfind("nccl[", 0) != 0 || v.back() != ']') return std::nullopt;
  std::string cfg = v.substr(5, v.size() - 6);
  NcclVariant n{NcclVariant::forced};
  if (const auto ch = cfg.find("/ch:"); ch != std::string::npos) {
    const auto count = tuner::parse_u64(cfg.substr(ch + 4));
    if (!count || *count < 1 || *count > std::uint64_t(tuner::kMaxChannels)) return std::nullopt;
    n.channels = int(*count);
    cfg = cfg.substr(0, ch);
  }
  const auto slash = cfg.find('/');
  if (slash == std::string::npos) return std::nullopt;
  n.algo = tuner::algo_index(cfg.substr(0, slash));
  n.proto = tuner::proto_index(cfg.substr(slash + 1));
  // Only the configurations arbench runs (ring and tree): names are lower case.
  if ((n.algo != tuner::kAlgoRing && n.algo != tuner::kAlgoTree) || n.proto < 0 || cfg != tuner::lower(cfg))
    return std::nullopt;
  return n;
}

std::string nccl_forced_name(int algo, int proto, int channels) {
  return std::string("nccl[") + tuner::algo_name(algo) + "/" + tuner::proto_name(proto) +
         (channels > 0 ? "/ch:" + std::to_string(channels) : "") + "]";
}

}  // namespace arbench
