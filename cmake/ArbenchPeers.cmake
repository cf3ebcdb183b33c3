# Peers: other projects' all-reduce kernels built into arbench from the copy the user already has
# (docs/variants.md, "Peers"). arbench contains none of their code: this module finds a copy at
# configure time, checks that it has what arbench's adapters (kernels/peers/) call, and records
# where it came from, its version or commit and the SHA256 of every header compiled in.
#
#   ARBENCH_PEERS            AUTO (default): build the peers of any copy found; ON: fail without
#                            one; OFF: build none
#   ARBENCH_FLASHINFER_DIR   a FlashInfer source checkout (include/flashinfer/...) or an installed
#                            flashinfer package folder (data/include/flashinfer/...)
#   ARBENCH_PEERS_PYTHON     the Python whose installed FlashInfer wheel to use (default python3)
#   ARBENCH_FLASHINFER_DOWNLOAD  ON: fetch the pinned files (cmake/peers/flashinfer_pinned.cmake),
#                            each checked against its SHA256
#   ARBENCH_VLLM_DIR         a vLLM checkout: vLLM's own csrc/custom_all_reduce.cuh for vllm-custom
#                            (else FlashInfer's copy of it, vllm_custom_all_reduce.cuh)
#
# Every function here works in CMake's script mode too (tests/cmake/ test the discovery with fake
# trees): none creates a target.

set(ARBENCH_PEERS_MODULE_DIR ${CMAKE_CURRENT_LIST_DIR})

# What each peer variant needs of its header: the header (relative to its include root), the
# names arbench's adapter calls (a copy without one of them is another version of the API), and
# the headers the adapter keeps out (kernels/peers/README.md: FlashInfer's logging header, which
# pulls in spdlog, is defined away before the fusion header is included).
set(ARBENCH_PEER_PCIE_IPC_HEADER flashinfer/comm/pcie_ipc_all_reduce.cuh)
set(ARBENCH_PEER_PCIE_IPC_SYMBOLS "compute_workspace_layout" "make_peer_views" "kStagedRing" "kFlatStaged"
    "cudaError_t all_reduce(")
set(ARBENCH_PEER_FUSION_HEADER flashinfer/comm/trtllm_allreduce_fusion.cuh)
set(ARBENCH_PEER_FUSION_SYMBOLS "allreduce_fusion_kernel_launcher" "kARResidualRMSNorm" "struct AllReduceFusionParams"
    "allreduce_fusion_kernel_oneshot_lamport" "allreduce_fusion_kernel_twoshot_sync" "trigger_completion_at_end")
set(ARBENCH_PEER_FUSION_KEEP_OUT flashinfer/logging.h)
set(ARBENCH_PEER_VLLM_FI_HEADER flashinfer/comm/vllm_custom_all_reduce.cuh)
set(ARBENCH_PEER_VLLM_HEADER custom_all_reduce.cuh)
set(ARBENCH_PEER_VLLM_SYMBOLS "cross_device_reduce_1stage" "cross_device_reduce_2stage" "RankData" "RankSignals"
    "kMaxBlocks")
# The commit FlashInfer's PCIe-IPC all-reduce came with (PR #4393, 2026-08-20).
set(ARBENCH_PEER_PCIE_IPC_SINCE "PR #4393, commit 299e6d11e of 2026-08-20 (version.txt 0.6.18)")

# The headers `header` (relative to `root`) compiles in: itself and every quoted include it reaches
# inside `root`, recursively, but those in KEEP_OUT (relative to `root`). Sorted.
function(arbench_peer_header_closure out root header)
  cmake_parse_arguments(A "" "" "KEEP_OUT" ${ARGN})
  set(seen)
  set(todo ${header})
  while(todo)
    list(POP_FRONT todo rel)
    if(rel IN_LIST seen OR rel IN_LIST A_KEEP_OUT OR NOT EXISTS "${root}/${rel}")
      continue()
    endif()
    list(APPEND seen ${rel})
    file(STRINGS "${root}/${rel}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    get_filename_component(dir "${rel}" DIRECTORY)
    foreach(line ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" inc "${line}")
      if(dir)
        set(inc "${dir}/${inc}")
      endif()
      # "../exception.h" from flashinfer/comm -> flashinfer/exception.h
      get_filename_component(abs "${root}/${inc}" ABSOLUTE)
      file(RELATIVE_PATH inc "${root}" "${abs}")
      list(APPEND todo ${inc})
    endforeach()
  endwhile()
  list(SORT seen)
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# Whether `root`/`header` is one arbench's adapter can use: the header and its closure hold every
# name in SYMBOLS. Sets <out>_OK (TRUE/FALSE), <out>_WHY (why not, for people), <out>_FILES (the
# closure) and <out>_HASHES ("path=sha256" per file). AGAINST says what the adapter was written for.
function(arbench_peer_check out root header)
  cmake_parse_arguments(A "" "WHAT;AGAINST" "SYMBOLS;KEEP_OUT" ${ARGN})
  set(${out}_OK FALSE PARENT_SCOPE)
  set(${out}_FILES "" PARENT_SCOPE)
  set(${out}_HASHES "" PARENT_SCOPE)
  if(NOT EXISTS "${root}/${header}")
    set(${out}_WHY "${A_WHAT} has no ${header}" PARENT_SCOPE)
    return()
  endif()
  arbench_peer_header_closure(files "${root}" "${header}" KEEP_OUT ${A_KEEP_OUT})
  set(text "")
  foreach(f ${files})
    file(READ "${root}/${f}" t)
    string(APPEND text "${t}")
  endforeach()
  set(missing)
  foreach(s ${A_SYMBOLS})
    string(FIND "${text}" "${s}" at)
    if(at EQUAL -1)
      list(APPEND missing "${s}")
    endif()
  endforeach()
  if(missing)
    list(JOIN missing "`, `" m)
    string(CONCAT why "${A_WHAT}'s ${header} lacks `${m}`, which arbench's adapter calls (another version of "
                      "its API; the adapter is written against ${A_AGAINST})")
    set(${out}_WHY "${why}" PARENT_SCOPE)
    return()
  endif()
  set(hashes)
  foreach(f ${files})
    file(SHA256 "${root}/${f}" h)
    list(APPEND hashes "${f}=${h}")
  endforeach()
  set(${out}_OK TRUE PARENT_SCOPE)
  set(${out}_WHY "" PARENT_SCOPE)
  set(${out}_FILES "${files}" PARENT_SCOPE)
  set(${out}_HASHES "${hashes}" PARENT_SCOPE)
endfunction()

# The licence files at the top of a copy (LICENSE*, NOTICE*, and licenses/*), absolute paths.
function(arbench_peer_licences out dir)
  file(GLOB found LIST_DIRECTORIES false "${dir}/LICENSE*" "${dir}/NOTICE*" "${dir}/licenses/*")
  list(SORT found)
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# The commit of a git checkout at `dir` ("" when it is none, or git is missing).
function(arbench_peer_git_commit out dir)
  set(${out} "" PARENT_SCOPE)
  find_program(ARBENCH_GIT_PROGRAM git)
  if(NOT ARBENCH_GIT_PROGRAM OR NOT EXISTS "${dir}/.git")
    return()
  endif()
  execute_process(COMMAND ${ARBENCH_GIT_PROGRAM} -C "${dir}" rev-parse HEAD OUTPUT_VARIABLE c
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    set(${out} "${c}" PARENT_SCOPE)
  endif()
endfunction()

# What a peer's copy is, for the function that calls this (a macro, so PARENT_SCOPE is that
# function's caller): <out>_INCLUDE (the folder its headers are included from), <out>_ORIGIN
# (where it came from, in words), <out>_VERSION, <out>_COMMIT and <out>_LICENCES.
macro(arbench_peer_copy_found out include origin version commit licences)
  set(${out}_INCLUDE "${include}" PARENT_SCOPE)
  set(${out}_ORIGIN "${origin}" PARENT_SCOPE)
  set(${out}_VERSION "${version}" PARENT_SCOPE)
  set(${out}_COMMIT "${commit}" PARENT_SCOPE)
  set(${out}_LICENCES "${licences}" PARENT_SCOPE)
endmacro()

# A FlashInfer copy given as a folder. Sets <out>_FOUND, <out>_ERROR (why not), <out>_INCLUDE (the
# folder holding flashinfer/), <out>_ORIGIN, <out>_VERSION, <out>_COMMIT, <out>_LICENCES.
function(arbench_flashinfer_from_dir out dir)
  set(${out}_FOUND FALSE PARENT_SCOPE)
  get_filename_component(dir "${dir}" ABSOLUTE)
  if(EXISTS "${dir}/include/flashinfer")
    set(include "${dir}/include")
    set(origin "checkout ${dir}")
    set(version unknown)
    if(EXISTS "${dir}/version.txt")
      file(STRINGS "${dir}/version.txt" v LIMIT_COUNT 1)
      string(STRIP "${v}" version)
    endif()
    arbench_peer_git_commit(commit "${dir}")
    arbench_peer_licences(licences "${dir}")
  elseif(EXISTS "${dir}/data/include/flashinfer")
    set(include "${dir}/data/include")
    set(origin "package ${dir}")
    set(version unknown)
    set(commit "")
    if(EXISTS "${dir}/_build_meta.py")  # what FlashInfer's build writes into the wheel
      file(STRINGS "${dir}/_build_meta.py" meta REGEX "^__(version|git_commit)__")
      foreach(line ${meta})
        if(line MATCHES "^__version__ *= *[\"']([^\"']*)[\"']")
          set(version "${CMAKE_MATCH_1}")
        elseif(line MATCHES "^__git_commit__ *= *[\"']([^\"']*)[\"']")
          set(commit "${CMAKE_MATCH_1}")
        endif()
      endforeach()
    endif()
    arbench_peer_licences(licences "${dir}")
  else()
    string(CONCAT why "ARBENCH_FLASHINFER_DIR=${dir} holds neither include/flashinfer (a FlashInfer source checkout) "
                      "nor data/include/flashinfer (an installed flashinfer package)")
    set(${out}_ERROR "${why}" PARENT_SCOPE)
    return()
  endif()
  set(${out}_FOUND TRUE PARENT_SCOPE)
  set(${out}_ERROR "" PARENT_SCOPE)
  arbench_peer_copy_found(${out} "${include}" "${origin}" "${version}" "${commit}" "${licences}")
endfunction()

# The FlashInfer wheel installed for `python` (cmake/peers/find_flashinfer.py finds it without
# importing it, so neither torch nor a GPU is needed). Sets what arbench_flashinfer_from_dir sets.
function(arbench_flashinfer_from_python out python)
  set(${out}_FOUND FALSE PARENT_SCOPE)
  execute_process(COMMAND "${python}" "${ARBENCH_PEERS_MODULE_DIR}/peers/find_flashinfer.py"
    OUTPUT_VARIABLE json ERROR_VARIABLE err RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    string(STRIP "${err}" err)
    set(${out}_ERROR "${python} could not be run to look for FlashInfer (${rc}${err})" PARENT_SCOPE)
    return()
  endif()
  string(JSON error ERROR_VARIABLE jerr GET "${json}" error)
  if(jerr STREQUAL "NOTFOUND" AND error)
    set(${out}_ERROR "${error}" PARENT_SCOPE)
    return()
  endif()
  string(JSON package GET "${json}" package)
  string(JSON where GET "${json}" python)
  arbench_flashinfer_from_dir(dir "${package}")
  if(NOT dir_FOUND)
    set(${out}_ERROR "${dir_ERROR} (found through ${where})" PARENT_SCOPE)
    return()
  endif()
  string(JSON version GET "${json}" version)
  string(JSON commit GET "${json}" commit)
  if(version STREQUAL "unknown")
    set(version "${dir_VERSION}")
  endif()
  string(JSON n LENGTH "${json}" licences)
  set(licences)
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON l GET "${json}" licences ${i})
      list(APPEND licences "${l}")
    endforeach()
  endif()
  if(NOT licences)
    set(licences "${dir_LICENCES}")
  endif()
  set(${out}_FOUND TRUE PARENT_SCOPE)
  set(${out}_ERROR "" PARENT_SCOPE)
  arbench_peer_copy_found(${out} "${dir_INCLUDE}" "wheel ${package} (${where})" "${version}" "${commit}" "${licences}")
endfunction()

# The pinned download: every file of `files` ("path=sha256", paths relative to the repository)
# from `url`/<commit>/<path> into `dest`, each checked against its SHA256. Sets <out>_FOUND and,
# when a file could not be had, <out>_ERROR: one line naming the file, what went wrong and what
# to do instead. A file already there with the right hash is not fetched again.
function(arbench_flashinfer_download out url commit dest)
  cmake_parse_arguments(A "" "" "FILES" ${ARGN})
  set(${out}_FOUND FALSE PARENT_SCOPE)
  foreach(entry ${A_FILES})
    string(REPLACE "=" ";" pair "${entry}")
    list(GET pair 0 path)
    list(GET pair 1 sha)
    set(to "${dest}/${path}")
    if(EXISTS "${to}")
      file(SHA256 "${to}" have)
      if(have STREQUAL sha)
        continue()
      endif()
    endif()
    # The hash is compared here, not with EXPECTED_HASH: a mismatch there stops CMake with a
    # message of its own, and a failure must be the one line below.
    file(DOWNLOAD "${url}/${commit}/${path}" "${to}" STATUS st TLS_VERIFY ON TIMEOUT 60 INACTIVITY_TIMEOUT 20)
    list(GET st 0 code)
    list(GET st 1 msg)
    if(code EQUAL 0)
      file(SHA256 "${to}" have)
      if(NOT have STREQUAL sha)
        set(code 1)
        set(msg "SHA256 ${have}, pinned ${sha}")
      endif()
    endif()
    if(NOT code EQUAL 0)
      file(REMOVE "${to}")
      string(CONCAT why "the pinned FlashInfer download failed at ${url}/${commit}/${path} (${msg}); without network "
                        "give a copy: -DARBENCH_FLASHINFER_DIR=<checkout> or the wheel through -DARBENCH_PEERS_PYTHON")
      set(${out}_ERROR "${why}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out}_FOUND TRUE PARENT_SCOPE)
  set(${out}_ERROR "" PARENT_SCOPE)
endfunction()

# Whether a FlashInfer copy at `include` (the folder holding flashinfer/) has each peer. Sets
# <out>_PCIE_IPC, <out>_FUSION, <out>_VLLM (_OK, _WHY, _FILES, _HASHES each).
function(arbench_flashinfer_peers out include what)
  set(against "FlashInfer 0.6.18 at commit fb28d7242b35")
  arbench_peer_check(p "${include}" ${ARBENCH_PEER_PCIE_IPC_HEADER} WHAT "${what}" AGAINST "${against}"
    SYMBOLS ${ARBENCH_PEER_PCIE_IPC_SYMBOLS})
  if(NOT p_OK AND NOT EXISTS "${include}/${ARBENCH_PEER_PCIE_IPC_HEADER}")
    string(CONCAT p_WHY "${p_WHY} (FlashInfer's PCIe-IPC all-reduce came with ${ARBENCH_PEER_PCIE_IPC_SINCE}; use a copy "
                        "of 2026-08-22 or later)")
  endif()
  arbench_peer_check(f "${include}" ${ARBENCH_PEER_FUSION_HEADER} WHAT "${what}" AGAINST "${against}"
    SYMBOLS ${ARBENCH_PEER_FUSION_SYMBOLS} KEEP_OUT ${ARBENCH_PEER_FUSION_KEEP_OUT})
  arbench_peer_check(v "${include}" ${ARBENCH_PEER_VLLM_FI_HEADER} WHAT "${what}" AGAINST "${against}"
    SYMBOLS ${ARBENCH_PEER_VLLM_SYMBOLS})
  foreach(pair "PCIE_IPC;p" "FUSION;f" "VLLM;v")
    list(GET pair 0 name)
    list(GET pair 1 v)
    foreach(field OK WHY FILES HASHES)
      set(${out}_${name}_${field} "${${v}_${field}}" PARENT_SCOPE)
    endforeach()
  endforeach()
endfunction()

# A vLLM checkout for vLLM's own custom all-reduce. Sets <out>_OK, <out>_WHY, <out>_INCLUDE (its
# csrc/), <out>_ORIGIN, <out>_VERSION, <out>_COMMIT, <out>_LICENCES, <out>_FILES, <out>_HASHES.
function(arbench_vllm_from_dir out dir)
  get_filename_component(dir "${dir}" ABSOLUTE)
  arbench_peer_check(v "${dir}/csrc" ${ARBENCH_PEER_VLLM_HEADER} WHAT "the vLLM checkout ${dir} (csrc/)"
    AGAINST "the kernels cross_device_reduce_1stage and _2stage(RankData*, RankSignals, Signal*, T*, rank, packs)"
    SYMBOLS ${ARBENCH_PEER_VLLM_SYMBOLS})
  foreach(field OK WHY FILES HASHES)
    set(${out}_${field} "${v_${field}}" PARENT_SCOPE)
  endforeach()
  arbench_peer_git_commit(commit "${dir}")
  set(version unknown)
  find_program(ARBENCH_GIT_PROGRAM git)
  if(commit AND ARBENCH_GIT_PROGRAM)
    execute_process(COMMAND ${ARBENCH_GIT_PROGRAM} -C "${dir}" describe --tags --always OUTPUT_VARIABLE d
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND d)
      set(version "${d}")
    endif()
  endif()
  arbench_peer_licences(licences "${dir}")
  arbench_peer_copy_found(${out} "${dir}/csrc" "checkout ${dir}" "${version}" "${commit}" "${licences}")
endfunction()

# ---- the configure step: which copies, which peers, and the generated record --------------------

# C++ string literal of `text` (a raw string: paths and reasons need no escaping).
function(arbench_peer_literal out text)
  set(${out} "R\"arb(${text})arb\"" PARENT_SCOPE)
endfunction()

# `{"path", "sha256"}, ...` of a list of "path=sha256".
function(arbench_peer_hash_items out hashes)
  set(items "")
  foreach(h ${hashes})
    string(REPLACE "=" ";" pair "${h}")
    list(GET pair 0 path)
    list(GET pair 1 sha)
    string(APPEND items "{\"${path}\", \"${sha}\"}, ")
  endforeach()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

# Finds the copies (variables above), decides each peer variant, prints one line, and writes
# `generated` (a C++ source defining arbench::peer_build(), include/arbench/core/peers.hpp). Sets
# in the caller: ARBENCH_PEER_{PCIE_IPC,FUSION,VLLM} (TRUE when built), ARBENCH_PEERS_FI_INCLUDE,
# ARBENCH_PEERS_VLLM_INCLUDE, ARBENCH_PEERS_VLLM_CHECKOUT, ARBENCH_PEERS_LICENCES_FLASHINFER,
# ARBENCH_PEERS_LICENCES_VLLM, ARBENCH_PEERS_LINE.
function(arbench_configure_peers generated)
  cmake_parse_arguments(A "" "MODE;FLASHINFER_DIR;PYTHON;DOWNLOAD;DOWNLOAD_DIR;DOWNLOAD_URL;VLLM_DIR" "" ${ARGN})
  set(how_to "to build FlashInfer's and vLLM's all-reduce kernels into arbench as peers: "
             "-DARBENCH_FLASHINFER_DIR=<FlashInfer checkout>, or pip install flashinfer-python (then "
             "-DARBENCH_PEERS_PYTHON=<that python>), or -DARBENCH_FLASHINFER_DOWNLOAD=ON (docs/variants.md, \"Peers\")")
  string(JOIN "" how_to ${how_to})
  set(fi_found FALSE)
  set(fi_why "")
  set(fi_dl "")
  if(A_MODE STREQUAL "OFF")
    set(off "ARBENCH_PEERS=OFF")
  elseif(A_FLASHINFER_DIR)
    arbench_flashinfer_from_dir(fi "${A_FLASHINFER_DIR}")
    if(NOT fi_FOUND)
      message(FATAL_ERROR "arbench: ${fi_ERROR}")
    endif()
    set(fi_found TRUE)
  elseif(A_DOWNLOAD)
    include(${ARBENCH_PEERS_MODULE_DIR}/peers/flashinfer_pinned.cmake)
    if(NOT A_DOWNLOAD_URL)
      set(A_DOWNLOAD_URL ${ARBENCH_FLASHINFER_PIN_URL})
    endif()
    set(dest "${A_DOWNLOAD_DIR}/flashinfer-${ARBENCH_FLASHINFER_PIN_COMMIT}")
    arbench_flashinfer_download(dl "${A_DOWNLOAD_URL}" ${ARBENCH_FLASHINFER_PIN_COMMIT} "${dest}"
      FILES ${ARBENCH_FLASHINFER_PIN_FILES})
    if(NOT dl_FOUND)
      message(FATAL_ERROR "arbench: ${dl_ERROR}")
    endif()
    arbench_flashinfer_from_dir(fi "${dest}")
    set(fi_ORIGIN "download ${A_DOWNLOAD_URL}/${ARBENCH_FLASHINFER_PIN_COMMIT}")
    set(fi_COMMIT ${ARBENCH_FLASHINFER_PIN_COMMIT})
    set(fi_found ${fi_FOUND})
  else()
    if(NOT A_PYTHON)
      set(A_PYTHON python3)
    endif()
    arbench_flashinfer_from_python(fi "${A_PYTHON}")
    set(fi_found ${fi_FOUND})
    set(fi_why "${fi_ERROR}")
  endif()

  set(built "")
  foreach(p PCIE_IPC FUSION VLLM)
    set(ok_${p} FALSE)
    set(why_${p} "")
  endforeach()
  set(sources "")
  set(fi_what "")
  if(fi_found)
    set(fi_what "FlashInfer ${fi_VERSION}")
    if(fi_COMMIT)
      string(SUBSTRING "${fi_COMMIT}" 0 12 short)
      string(APPEND fi_what " (${short})")
    endif()
    arbench_flashinfer_peers(c "${fi_INCLUDE}" "${fi_what} at ${fi_INCLUDE}")
    foreach(p PCIE_IPC FUSION VLLM)
      set(ok_${p} ${c_${p}_OK})
      set(why_${p} "${c_${p}_WHY}")
    endforeach()
    set(fi_hashes ${c_PCIE_IPC_HASHES} ${c_FUSION_HASHES})
    if(ok_VLLM)
      list(APPEND fi_hashes ${c_VLLM_HASHES})
    endif()
  endif()
  set(vllm_checkout FALSE)
  set(vllm_include "")
  if(A_VLLM_DIR AND NOT A_MODE STREQUAL "OFF")
    arbench_vllm_from_dir(vl "${A_VLLM_DIR}")
    if(NOT vl_OK)
      message(FATAL_ERROR "arbench: ARBENCH_VLLM_DIR: ${vl_WHY}")
    endif()
    set(ok_VLLM TRUE)
    set(why_VLLM "")
    set(vllm_checkout TRUE)
    set(vllm_include "${vl_INCLUDE}")
  elseif(ok_VLLM)
    set(vllm_include "${fi_INCLUDE}")
  endif()
  if(fi_found)
    list(REMOVE_DUPLICATES fi_hashes)
    list(SORT fi_hashes)
    arbench_peer_hash_items(items "${fi_hashes}")
    foreach(v ORIGIN VERSION COMMIT)
      arbench_peer_literal(l_${v} "${fi_${v}}")
    endforeach()
    string(APPEND sources "    p.sources.push_back({\"FlashInfer\", ${l_ORIGIN}, ${l_VERSION}, ${l_COMMIT}, {${items}}});\n")
  endif()
  if(vllm_checkout)
    arbench_peer_hash_items(items "${vl_HASHES}")
    foreach(v ORIGIN VERSION COMMIT)
      arbench_peer_literal(l_${v} "${vl_${v}}")
    endforeach()
    string(APPEND sources "    p.sources.push_back({\"vLLM\", ${l_ORIGIN}, ${l_VERSION}, ${l_COMMIT}, {${items}}});\n")
  endif()

  # The variants, their availability, and the one line.
  set(off_line "")
  if(A_MODE STREQUAL "OFF")
    set(off_line "peers off (ARBENCH_PEERS=OFF)")
  elseif(NOT fi_found AND NOT vllm_checkout)
    set(off_line "peers off: ${fi_why}; ${how_to}")
  endif()
  foreach(p PCIE_IPC FUSION VLLM)
    if(NOT ok_${p} AND NOT why_${p})
      if(off_line)
        set(why_${p} "${off_line}")
      else()  # a vLLM checkout, no FlashInfer
        set(why_${p} "no FlashInfer: ${fi_why}; ${how_to}")
      endif()
    endif()
    if(ok_${p})
      list(APPEND built ${p})
    endif()
  endforeach()
  if(A_MODE STREQUAL "ON" AND NOT built)
    message(FATAL_ERROR "arbench: ARBENCH_PEERS=ON but no peer can be built: ${off_line}${why_PCIE_IPC}")
  endif()
  set(vllm_label "vLLM's custom all-reduce")
  if(vllm_checkout)
    set(vllm_from "vLLM ${vl_VERSION} (${vl_ORIGIN}), csrc/custom_all_reduce.cuh")
    if(vl_VERSION STREQUAL "unknown")
      set(vllm_from "vLLM, version unknown (${vl_ORIGIN}), csrc/custom_all_reduce.cuh")
    endif()
  else()
    set(vllm_from "FlashInfer's copy, flashinfer/comm/vllm_custom_all_reduce.cuh")
  endif()
  set(names "")
  if(ok_PCIE_IPC)
    list(APPEND names flashinfer-pcie-ipc)
  endif()
  if(ok_FUSION)
    list(APPEND names flashinfer-fused)
  endif()
  if(ok_VLLM)
    list(APPEND names "vllm-custom (${vllm_from})")
  endif()
  if(off_line)
    set(line "arbench: ${off_line}")
  else()
    list(JOIN names ", " n)
    set(line "arbench: peers built: ${n}")
    if(fi_found)
      string(APPEND line " from ${fi_what}, ${fi_ORIGIN}")
    endif()
    foreach(p PCIE_IPC FUSION VLLM)
      if(NOT ok_${p})
        string(APPEND line "; not built: ${why_${p}}")
      endif()
    endforeach()
  endif()
  message(STATUS "${line}")

  foreach(p PCIE_IPC FUSION VLLM)
    arbench_peer_literal(w_${p} "${why_${p}}")
  endforeach()
  arbench_peer_literal(l_off "${off_line}")
  arbench_peer_literal(l_vllm "${vllm_from}")
  file(CONFIGURE OUTPUT "${generated}" CONTENT [=[
// Generated by cmake/ArbenchPeers.cmake at configure time: the peers built into this arbench (the
// copies of other projects' code it was compiled against, and the SHA256 of every header).
#include "arbench/core/peers.hpp"

namespace arbench {

const PeerBuild& peer_build() {
  static const PeerBuild b = [] {
    PeerBuild p;
    p.off_reason = @l_off@;
@sources@    p.variants = {{"flashinfer-pcie-ipc", @w_PCIE_IPC@},
                  {"flashinfer-fused", @w_FUSION@},
                  {"vllm-custom", @w_VLLM@}};
    p.vllm_from = @l_vllm@;
    return p;
  }();
  return b;
}

}  // namespace arbench
]=] @ONLY)

  set(ARBENCH_PEERS_LINE "${line}" PARENT_SCOPE)
  foreach(p PCIE_IPC FUSION VLLM)
    set(ARBENCH_PEER_${p} ${ok_${p}} PARENT_SCOPE)
  endforeach()
  set(ARBENCH_PEERS_FI_INCLUDE "${fi_INCLUDE}" PARENT_SCOPE)
  set(ARBENCH_PEERS_VLLM_INCLUDE "${vllm_include}" PARENT_SCOPE)
  set(ARBENCH_PEERS_VLLM_CHECKOUT ${vllm_checkout} PARENT_SCOPE)
  if(fi_found)
    set(ARBENCH_PEERS_LICENCES_FLASHINFER "${fi_LICENCES}" PARENT_SCOPE)
  else()
    set(ARBENCH_PEERS_LICENCES_FLASHINFER "" PARENT_SCOPE)
  endif()
  if(vllm_checkout)
    set(ARBENCH_PEERS_LICENCES_VLLM "${vl_LICENCES}" PARENT_SCOPE)
  else()
    set(ARBENCH_PEERS_LICENCES_VLLM "" PARENT_SCOPE)
  endif()
endfunction()
