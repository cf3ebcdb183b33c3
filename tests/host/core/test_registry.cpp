// The registry's lookup of configurations and the catalogue `arbench list` prints.
#include <gtest/gtest.h>

#include <algorithm>

#include "arbench/variant.hpp"

using namespace arbench;

namespace {

Registry registry_with_configs() {
  Registry r;
  VariantEntry nccl;
  nccl.name = "nccl";
  nccl.summary = "NCCL";
  nccl.gpu = [] { return std::unique_ptr<Variant>(); };
  nccl.no_host_reason = "needs GPUs";
  nccl.configs = {"ring/ll", "tree/simple"};
  nccl.make_configured = [](const std::string&) { return std::unique_ptr<Variant>(); };
  r.add(nccl);
  VariantEntry ref;
  ref.name = "reference";
  ref.summary = "host yardstick";
  ref.host = [] { return std::unique_ptr<Variant>(); };
  ref.no_gpu_reason = "host only";
  r.add(ref);
  return r;
}

const VariantInfo& find(const std::vector<VariantInfo>& c, const std::string& name) {
  auto it = std::find_if(c.begin(), c.end(), [&](const VariantInfo& v) { return v.name == name; });
  if (it == c.end()) throw std::runtime_error("not in catalogue: " + name);
  return *it;
}

}  // namespace

TEST(Registry, FindsConfigurationsByFullNameOnly) {
  const Registry r = registry_with_configs();
  EXPECT_NE(r.find("nccl[ring/ll]"), nullptr);
  EXPECT_EQ(r.find("nccl[ring/ll]"), r.find("nccl"));
  EXPECT_EQ(r.find("nccl[ring/ll128]"), nullptr);  // not a declared configuration
  EXPECT_EQ(r.find("nccl[ring/ll"), nullptr);      // malformed
  EXPECT_EQ(r.find("reference[x]"), nullptr);      // no configurations at all
}

TEST(Registry, CatalogueListsEveryVariantAndConfigurationInOrder) {
  const auto c = registry_with_configs().catalogue(Backend::cuda);
  std::vector<std::string> names;
  for (const auto& v : c) names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"nccl", "nccl[ring/ll]", "nccl[tree/simple]", "reference"}));
  EXPECT_FALSE(find(c, "nccl").named_only);
  EXPECT_TRUE(find(c, "nccl[tree/simple]").named_only);
  EXPECT_NE(find(c, "nccl[tree/simple]").summary.find("tree/simple"), std::string::npos);
  EXPECT_EQ(find(c, "reference").summary, "host yardstick");
}

TEST(Registry, CatalogueSaysWhyAVariantCannotRunOnTheBackend) {
  const Registry r = registry_with_configs();
  const auto gpu = r.catalogue(Backend::cuda);
  EXPECT_EQ(find(gpu, "nccl").unavailable, "");
  EXPECT_EQ(find(gpu, "nccl[ring/ll]").unavailable, "");
  EXPECT_EQ(find(gpu, "reference").unavailable, "host only");
  const auto host = r.catalogue(Backend::host);
  EXPECT_EQ(find(host, "nccl").unavailable, "needs GPUs");
  EXPECT_EQ(find(host, "nccl[ring/ll]").unavailable, "configurations run on GPU fabrics only");
  EXPECT_EQ(find(host, "reference").unavailable, "");
}

// The registry's `lossy` flag (which keeps a variant out of the default sweep and wildcards) says
// what the variant itself says: a lossy variant registered without it would run in every sweep,
// an exact one marked lossy would silently drop out. Planted: fp8_host_entry without
// `e.lossy = true` fails here.
TEST(Registry, TheLossyFlagOfEveryHostEntryMatchesItsVariant) {
  Registry reg;
  register_host_variants(reg);
  int lossy = 0;
  for (const VariantEntry& e : reg.entries()) {
    if (!e.host) continue;
    EXPECT_EQ(e.lossy, e.host()->lossy()) << e.name;
    lossy += e.lossy ? 1 : 0;
  }
  EXPECT_EQ(lossy, 2) << "oneshot-fp8 and twoshot-fp8";
}

// A peer (docs/variants.md, "Peers") not built into this arbench keeps its entry and its
// configurations: each is found and listed, and unavailable on every backend with the configure
// step's reason; built (a factory), it runs on the GPU fabrics and its configurations too.
TEST(Registry, APeerNotBuiltIsListedWithTheConfigureStepsReason) {
  Registry r;
  VariantEntry e;
  e.name = "flashinfer-pcie-ipc";
  e.summary = "a peer";
  e.peer = "FlashInfer";
  e.configs = {"staged"};
  e.no_gpu_reason = "peers off: no FlashInfer; -DARBENCH_FLASHINFER_DIR=...";
  e.no_host_reason = "GPUs only";
  r.add(e);
  ASSERT_NE(r.find("flashinfer-pcie-ipc[staged]"), nullptr);
  EXPECT_EQ(r.find("flashinfer-pcie-ipc[ring]"), nullptr);  // not one of its configurations
  for (Backend b : {Backend::cuda, Backend::single_gpu, Backend::host})
    for (const char* name : {"flashinfer-pcie-ipc", "flashinfer-pcie-ipc[staged]"})
      EXPECT_EQ(r.unavailable_reason(name, b), e.no_gpu_reason) << name << " on " << backend_name(b);
  const auto c = r.catalogue(Backend::host);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].unavailable, e.no_gpu_reason);
  EXPECT_EQ(c[1].name, "flashinfer-pcie-ipc[staged]");
  EXPECT_EQ(c[1].unavailable, "not built (as `flashinfer-pcie-ipc`)");  // the reason once, on the peer's line

  Registry built;
  e.gpu = [] { return std::unique_ptr<Variant>(); };
  e.make_configured = [](const std::string&) { return std::unique_ptr<Variant>(); };
  built.add(e);
  EXPECT_EQ(built.unavailable_reason("flashinfer-pcie-ipc[staged]", Backend::cuda), "");
  EXPECT_EQ(built.unavailable_reason("flashinfer-pcie-ipc", Backend::host), "GPUs only");
}
