// FlashInfer's fused all-reduce + RMSNorm as each engine runs it (engines.hpp): whether it builds
// for the GPU with the FlashInfer judged, vLLM's fusion line (judged at each token count on the
// one-shot or two-shot kernel vLLM's table picks), and FlashInfer's own API (use_oneshot); with the
// size rules of the catalogue entries the engine rules share.
#include <algorithm>
#include <cctype>

#include "settings/engines.hpp"

namespace arbench::engine_detail {

const SizeRule* size_rule(const Knob& k, int world, int cc) {
  for (const SizeRule& r : k.sizes)
    if (r.world == world && (r.cc == 0 || r.cc == cc)) return &r;
  return nullptr;
}

bool uses(const SizeRule& r, std::uint64_t size) {
  return (r.small_max > 0 && size <= r.small_max) || (r.large_min > 0 && size >= r.large_min);
}

std::string rule_text(const SizeRule& r) {
  std::string t;
  if (r.small_max > 0) t = "at or below " + size_text(r.small_max, "bytes");
  if (r.large_min > 0) t += (t.empty() ? "" : " and ") + std::string("at or above ") + size_text(r.large_min, "bytes");
  return t;
}

int cc_number(const GpuFacts& g) {  // "10.0" -> 100
  const int major = g.cc_major();
  const auto dot = g.cc.find('.');
  const bool minor = dot != std::string::npos && dot + 1 < g.cc.size();
  return major < 0 ? -1 : major * 10 + (minor ? g.cc[dot + 1] - '0' : 0);
}


namespace {

// The capability majors an entry's values name ("SM 9.x, 10.x" -> 9, 10); empty: any (built for
// the GPU found).
std::vector<int> majors(std::string_view values) {
  std::vector<int> out;
  for (std::size_t i = 0; i + 1 < values.size(); ++i)
    if (values.substr(i, 2) == ".x") {
      std::size_t b = i;
      while (b > 0 && std::isdigit(static_cast<unsigned char>(values[b - 1]))) --b;
      if (b < i) out.push_back(std::stoi(std::string(values.substr(b, i - b))));
    }
  return out;
}

bool builds_for(const Knob& k, int major) {
  const std::vector<int> m = majors(k.values);
  if (m.empty()) return true;
  for (int x : m)
    if (x == major) return true;
  return false;
}

}  // namespace

FiBuild fi_build_for(const GpuFacts& gpu, const StackVersions& stack, std::string_view engine,
                     const std::vector<FlashInferPin>& pins) {
  FiBuild out;
  const int major = gpu.cc_major();
  if (major < 0) return out;
  const std::string cc = "capability " + gpu.cc;
  std::string cannot, can_from;  // the releases that cannot build for it, and the first that can again
  for (const Knob& k : knobs())
    if (k.id == "flashinfer.comm_arch") {
      if (!builds_for(k, major)) {
        cannot += (cannot.empty() ? "" : ", ") + release_range(k) + " (built for " + std::string(k.values) + ")";
        can_from.clear();
      } else if (!cannot.empty() && can_from.empty()) {
        can_from = std::string(k.first);
      }
    }
  if (cannot.empty()) return out;
  // The FlashInfer judged: the one given, else the one the engine release given pins, where that pin
  // was read at the release's tag (flashinfer_pins.hpp); a pin read only at a commit is named, not used.
  StackVersions judged = stack;
  const FlashInferPin* pin = nullptr;
  std::string pin_note;  // a pin read at a commit, or the engine release whose pin was not read
  if (!stack.engine("flashinfer"))
    for (const std::string_view pkg : {std::string_view("vllm"), std::string_view("sglang")}) {
      const auto v = stack.engine(std::string(pkg));
      if ((!engine.empty() && pkg != engine) || !v || pin) continue;
      const FlashInferPin* p = flashinfer_pin(pkg, *v, pins);
      if (p && p->at_release) {
        pin = p;
        judged.engines["flashinfer"] = *parse_release(std::string(p->flashinfer));
      } else if (pin_note.empty()) {
        pin_note = p ? pin_engine(*p) + "'s pin, FlashInfer " + std::string(p->flashinfer) + ", was read at " +
                           pin_source(*p) + ", not at the release's tag"
                     : std::string(pkg == "vllm" ? "vLLM " : "SGLang ") + v->text() +
                           "'s FlashInfer pin was not read at its tag";
      }
    }
  const KnobFor kf = knob_for("flashinfer.comm_arch", judged, std::nullopt);
  const std::string releases = "FlashInfer's fused all-reduce (trtllm_comm) cannot build for " + cc + " in FlashInfer " +
                               cannot + (can_from.empty() ? "" : "; from " + can_from + " it can");
  if (!kf.given) {
    out.known = false;
    out.why = releases + "; which FlashInfer your engine installs is not known here" +
              (pin_note.empty() ? std::string() : " (" + pin_note + ")") +
              ": give --engine flashinfer=VERSION (pip show flashinfer-python)";
    return out;
  }
  if (builds_for(*kf.entry, major)) return out;
  out.builds = false;
  const std::string who = pin ? "FlashInfer " + std::string(pin->flashinfer) + " (pinned by " + pin_engine(*pin) + ": " +
                                    pin_source(*pin) + ")"
                              : kf.mine;
  out.why = who + " builds its fused all-reduce (trtllm_comm) for " + std::string(kf.entry->values) + " only (" +
            std::string(kf.entry->conditions) + "), not for " + cc +
            (can_from.empty() ? std::string() : "; FlashInfer " + can_from + " and later build it for " + cc);
  return out;
}

FiBuild fi_fusion_build(const EngineContext& c, std::string_view engine) {
  return fi_build_for(c.gpu, c.stack, engine, flashinfer_pins());
}

namespace {
// Where the fusion loses from the smallest token count and the release switches it on by default
// (fuse_allreduce_rms at -O2 on 9.0/10.x with TP > 1, PR #34299), "off" means setting it false: `set`
// where the entry says the default is on, `try` where the release's default is unknown.
void switch_off_default(const EngineContext& c, EngineSetting& s, std::vector<std::string>& flags) {
  const KnobDefault d = s.entry->default_value;
  const bool hopper_blackwell = c.gpu.cc_major() == 9 || c.gpu.cc_major() == 10;
  if (!hopper_blackwell || (d != KnobDefault::on && d != KnobDefault::unknown)) return;
  const std::string_view name = s.entry->name;  // "pass_config.fuse_allreduce_rms, ..."
  const std::size_t dot = name.find('.') + 1;
  const std::string key(name.substr(dot, name.find(',') - dot));
  s.paste = "--compilation-config '{\"pass_config\": {\"" + key + "\": false}}'";
  s.value = "off: set it false";
  if (d == KnobDefault::on) {
    s.status = S::set;
    s.why += "; this release switches it on by default at -O2 with TP > 1 on capability " + c.gpu.cc +
             ", so it must be set false";
  } else {
    s.status = S::try_it;
    s.why += "; whether this release switches it on by default is unknown (" + std::string(s.entry->caveat) +
             "): setting it false is safe either way";
  }
  if (settle(s)) flags.push_back(s.paste);
}

}  // namespace

// The fusion as vLLM runs it: at each token count the kernel vLLM picks (one-shot up to its
// one-shot table's size, two-shot above; one-shot always where the table has no entry for this
// capability) against the best unfused pair.
EngineSetting vllm_fusion(const EngineContext& c, std::vector<std::string>& flags) {
  const Findings& f = c.f;
  const int w = c.world();
  bool lacks = false;
  EngineSetting s = knob_setting(c, "vllm.fusion", S::keep, &lacks);
  if (lacks) return s;
  const FiBuild fi = fi_fusion_build(c, "vllm");
  if (!fi.builds) {
    s.status = S::gated;
    s.value = "off";
    s.why = fi.why + ": the fusion pass has no kernel here; leave it off";
    return s;
  }
  if (!f.fusion.measured) {
    EngineSetting m = missing("vllm.fusion", f.fusion.missing, f.fusion.run_line);
    m.entry = s.entry;
    m.versions = s.versions;
    return m;
  }
  const SizeRule* one_shot = size_rule(*s.entry, w, cc_number(c.gpu));
  std::uint64_t lead = 0;
  bool leading = true;
  const auto world = c.m.fused.find(w);
  std::vector<Evidence> all;
  // The case that ran FlashInfer's kernel as the user's vLLM release runs it: the kernel its table
  // picks, forced and launched as vLLM launches it (flashinfer-fused[oneshot] / [twoshot]), else
  // flashinfer-fused[vllm] (vLLM's rule at the run's capability: the same choice wherever the table of
  // the user's release has the capability's row as the newest does, 12.x included), else arbench's
  // fused kernel of the same kind.
  bool peer = false;
  for (const auto& [tokens, at] : world->second)
    peer = peer || at.count("flashinfer-fused[oneshot]") || at.count("flashinfer-fused[twoshot]") ||
           at.count("flashinfer-fused[vllm]");
  for (const auto& [tokens, at] : world->second) {
    const std::uint64_t bytes = tokens * std::uint64_t(c.m.hidden) * std::uint64_t(c.m.dtype_bytes);
    const bool oneshot = !one_shot || bytes <= one_shot->small_max;
    std::string kernel = peer ? (oneshot ? "flashinfer-fused[oneshot]" : "flashinfer-fused[twoshot]")
                              : (oneshot ? "fused-oneshot" : "fused-twoshot");
    if (peer && !at.count(kernel)) kernel = "flashinfer-fused[vllm]";
    const ResultCase* picked = at.count(kernel) ? at.at(kernel) : nullptr;
    const ResultCase* best = nullptr;
    for (const char* u : {"unfused-nccl", "unfused-oneshot"})
      if (at.count(u) && (!best || at.at(u)->median_us < best->median_us)) best = at.at(u);
    if (!picked || !best) continue;
    all.push_back(weigh(*picked, *best, "tokens", tokens, c.verdict));
    const Evidence& e = all.back();
    if (leading && e.beats) lead = tokens;
    leading = leading && e.beats;
  }
  const std::string kernels = one_shot ? "one-shot up to " + size_text(one_shot->small_max, "bytes") + ", two-shot above"
                                       : "one-shot at every size (its table has no entry for capability " +
                                             (c.gpu.cc.empty() ? std::string("unknown") : c.gpu.cc) + ")";
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].size == lead || (i > 0 && all[i - 1].size == lead) || (lead == 0 && i == 0)) s.evidence.push_back(all[i]);
  Advantage measured;  // what peer_note reads: whether FlashInfer's own kernel was measured
  measured.measured = peer;
  const std::string note = peer_note(measured, "flashinfer-fused[oneshot]` and `flashinfer-fused[twoshot]",
                                     "fused-oneshot / fused-twoshot");
  if (lead == 0) {
    s.value = "off";
    s.why = "the kernel vLLM runs here (" + kernels + ") does not beat the best unfused pair at the smallest token "
            "count; " + note;
    switch_off_default(c, s, flags);
    if (!fi.known) s.why += "; " + fi.why;
    return s;
  }
  const std::uint64_t bytes = lead * std::uint64_t(c.m.hidden) * std::uint64_t(c.m.dtype_bytes);
  s.status = c.gpu.cc_major() == 9 || c.gpu.cc_major() == 10 ? S::set : S::try_it;
  s.paste = std::string(s.entry->paste);  // the key of the user's release (knobs.cpp)
  const bool sized = s.paste.find("{mib}") != std::string::npos;
  if (sized) s.paste.replace(s.paste.find("{mib}"), 5, mib_value(bytes));
  s.value = "on up to " + std::to_string(lead) + " tokens x hidden " + std::to_string(c.m.hidden) + " x " + c.m.dtype +
            " = " + size_text(bytes, "bytes");
  s.why = "judged on the kernel vLLM runs here (" + kernels + "): it beats the best unfused pair at every token count "
          "up to there; " + (peer ? note : "the engine's kernel is FlashInfer's: " + note);
  if (!fi.known) {
    s.status = S::try_it;
    s.why += "; " + fi.why;
  }
  if (!sized)
    s.why += "; the size key of this release is not pinned, so the line sets only the switch (vLLM then fuses up to "
             "its own default size)";
  if (settle(s)) flags.push_back(s.paste);
  return s;
}

// --- FlashInfer's API -----------------------------------------------------------------------

EngineSection flashinfer_section(const EngineContext& c) {
  const Findings& f = c.f;
  EngineSection sec;
  sec.engine = "FlashInfer";
  const int w = f.world;
  // Judged on FlashInfer's own kernels where the run has both forced (flashinfer-fused[oneshot] and
  // [twoshot]), else on arbench's fused-oneshot and fused-twoshot.
  const Advantage& shots = peer_or_nearest(f.peer_fused_shots, f.fused_shots);
  const std::string note = peer_note(f.peer_fused_shots, "flashinfer-fused[oneshot]` and `flashinfer-fused[twoshot]",
                                     "fused-oneshot / fused-twoshot");
  if (!shots.measured) {
    sec.settings.push_back(missing("flashinfer.use_oneshot", f.fused_shots.missing, f.fused_shots.run_line));
    return sec;
  }
  bool lacks = false;
  EngineSetting s = knob_setting(c, "flashinfer.use_oneshot",
                                 c.gpu.cc_major() == 9 || c.gpu.cc_major() == 10 ? S::set : S::try_it, &lacks);
  const FiBuild fb = fi_fusion_build(c, "");
  if (lacks || !fb.builds) {
    if (!fb.builds) s.status = S::gated, s.why = fb.why + ": use_oneshot has no kernel to choose for";
    sec.settings.push_back(s);
    return sec;
  }
  if (!fb.known) s.status = S::try_it;
  s.evidence = shots.boundary();
  // Two-shot asserts token_num > world_size: one-shot up to at least the GPU count, whatever was measured.
  const std::string floor = " (two-shot needs token_num > " + std::to_string(w) + ": one-shot up to " +
                            std::to_string(w) + " tokens at least)";
  if (shots.everywhere) {
    s.paste = "use_oneshot=True";
    s.value = "one-shot at every token count measured (up to " + size_text(shots.last_size(), "tokens") + ")";
  } else {
    const std::uint64_t t = std::max<std::uint64_t>(shots.lead, std::uint64_t(w));
    s.paste = "use_oneshot=(token_num <= " + std::to_string(t) + ")";
    s.value = (shots.lead == 0 ? std::string("two-shot from the smallest token count measured")
                               : "one-shot up to " + std::to_string(shots.lead) + " tokens, two-shot above") +
              (shots.lead < std::uint64_t(w) ? floor : "");
  }
  // FlashInfer's own rule (use_oneshot=None), by release: up to 0.4.x one-shot up to 128 tokens; from
  // 0.5.0 one-shot while token_num * hidden * 2 * world * itemsize is at most the entry's size (B200).
  if (s.entry->oneshot_max_tokens > 0) {
    s.why = "FlashInfer's own rule in this release (use_oneshot=None) is one-shot up to " +
            std::to_string(s.entry->oneshot_max_tokens) + " tokens, whatever the hidden size";
  } else if (c.m.hidden > 0) {
    for (const SizeRule& r : s.entry->sizes)
      if (r.world == w) {
        const std::uint64_t tokens = r.small_max / (std::uint64_t(c.m.hidden) * 2 * std::uint64_t(w) *
                                                    std::uint64_t(c.m.dtype_bytes));
        s.why = "at hidden " + std::to_string(c.m.hidden) + " FlashInfer's own rule (use_oneshot=None, tuned on B200) "
                "switches after " + std::to_string(tokens) + " tokens";
      }
  }
  s.why += (s.why.empty() ? "" : "; ") + note + (fb.known ? "" : "; " + fb.why);
  settle(s);
  sec.settings.push_back(s);
  return sec;
}

}  // namespace arbench::engine_detail
