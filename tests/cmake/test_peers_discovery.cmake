# The peers' discovery (cmake/ArbenchPeers.cmake) in CMake's script mode, on fake copies built
# here: a FlashInfer checkout, an installed wheel found through Python, a copy too old for the
# PCIe-IPC all-reduce, one whose API changed, a folder that is neither, a Python without
# FlashInfer, the pinned download from a local "server" (right files, a wrong hash, a missing
# file), a vLLM checkout, and the configure step's record and one line.
#   cmake -DSOURCE_DIR=<repo> -DWORK=<empty folder> [-DPYTHON=python3] -P test_peers_discovery.cmake
# A failure prints what was expected and exits non-zero (message(FATAL_ERROR)).
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR OR NOT WORK)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -DWORK=<folder> -P test_peers_discovery.cmake")
endif()
if(NOT PYTHON)
  set(PYTHON python3)
endif()
list(APPEND CMAKE_MODULE_PATH ${SOURCE_DIR}/cmake)
include(ArbenchPeers)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# expect(WHAT CONDITION): CONDITION is an if() condition, as text.
macro(expect what cond)
  cmake_language(EVAL CODE "if(${cond})\nset(_ok TRUE)\nelse()\nset(_ok FALSE)\nendif()")
  if(_ok)
    message(STATUS "ok: ${what}")
  else()
    message(SEND_ERROR "FAIL: ${what} (${cond})")
  endif()
endmacro()
macro(expect_contains what haystack needle)
  string(REGEX REPLACE "[ \n]+" " " _flat "${haystack}")  # CMake wraps the messages it prints
  string(FIND "${_flat}" "${needle}" _at)
  if(_at EQUAL -1)
    message(SEND_ERROR "FAIL: ${what}: '${needle}' not in '${haystack}'")
  else()
    message(STATUS "ok: ${what}")
  endif()
endmacro()

# A fake FlashInfer include tree under `root`: the three peer headers with the names arbench's
# adapters call, the fusion header's quoted includes (logging.h among them, which is kept out).
function(fake_flashinfer root)
  cmake_parse_arguments(A "NO_PCIE;OLD_API" "" "" ${ARGN})
  set(c "${root}/flashinfer/comm")
  file(MAKE_DIRECTORY "${c}")
  if(NOT A_NO_PCIE)
    set(views "make_peer_views")
    if(A_OLD_API)
      set(views "make_views")
    endif()
    file(WRITE "${c}/pcie_ipc_all_reduce.cuh"
      "// fake\nenum class Variant { kStagedRing, kFlatStaged };\nvoid compute_workspace_layout();\nvoid ${views}();\n"
      "cudaError_t all_reduce(int);\n")
  endif()
  file(WRITE "${c}/trtllm_allreduce_fusion.cuh"
    "#include \"../exception.h\"\n#include \"../logging.h\"\n  #  include \"../utils.cuh\"\n#include <array>\n"
    "struct AllReduceFusionParams { bool trigger_completion_at_end; };\nenum { kARResidualRMSNorm };\n"
    "void allreduce_fusion_kernel_launcher(); void allreduce_fusion_kernel_oneshot_lamport();\n"
    "void allreduce_fusion_kernel_twoshot_sync();\n")
  file(WRITE "${c}/vllm_custom_all_reduce.cuh"
    "struct RankData; struct RankSignals; int kMaxBlocks;\nvoid cross_device_reduce_1stage(); void cross_device_reduce_2stage();\n")
  file(WRITE "${root}/flashinfer/exception.h" "// exception\n")
  file(WRITE "${root}/flashinfer/utils.cuh" "#include \"exception.h\"\n")
  file(WRITE "${root}/flashinfer/logging.h" "#include <spdlog/spdlog.h>\n")
endfunction()

# ---- a source checkout ---------------------------------------------------------------------------
set(co "${WORK}/flashinfer-checkout")
fake_flashinfer("${co}/include")
file(WRITE "${co}/version.txt" "0.6.99\n")
file(WRITE "${co}/LICENSE" "Apache\n")
file(WRITE "${co}/NOTICE" "notice\n")
arbench_flashinfer_from_dir(fi "${co}")
expect("a checkout is found" fi_FOUND)
expect("its include folder" "fi_INCLUDE STREQUAL \"${co}/include\"")
expect("its version from version.txt" "fi_VERSION STREQUAL \"0.6.99\"")
expect("no commit without git metadata" "fi_COMMIT STREQUAL \"\"")
list(LENGTH fi_LICENCES n)
expect("LICENSE and NOTICE to ship" "n EQUAL 2")
arbench_flashinfer_peers(p "${fi_INCLUDE}" "FlashInfer 0.6.99")
expect("every peer of a complete copy" "p_PCIE_IPC_OK AND p_FUSION_OK AND p_VLLM_OK")
expect("the fusion header's closure, logging.h kept out"
  "p_FUSION_FILES STREQUAL \"flashinfer/comm/trtllm_allreduce_fusion.cuh;flashinfer/exception.h;flashinfer/utils.cuh\"")
file(SHA256 "${co}/include/flashinfer/utils.cuh" h)
list(FIND p_FUSION_HASHES "flashinfer/utils.cuh=${h}" at)
expect("each header's SHA256 recorded" "NOT at EQUAL -1")

# ---- the same copy as an installed wheel, found through Python ----------------------------------
set(site "${WORK}/site-packages")
fake_flashinfer("${site}/flashinfer/data/include")
file(WRITE "${site}/flashinfer/__init__.py" "raise ImportError('arbench must not import flashinfer')\n")
file(WRITE "${site}/flashinfer/_build_meta.py" "__version__ = \"0.6.98\"\n__git_commit__ = \"0123456789abcdef\"\n")
set(di "${site}/flashinfer_python-0.6.98.dist-info")
file(MAKE_DIRECTORY "${di}/licenses")
file(WRITE "${di}/METADATA" "Metadata-Version: 2.4\nName: flashinfer-python\nVersion: 0.6.98\n")
file(WRITE "${di}/licenses/LICENSE" "Apache\n")
file(WRITE "${di}/RECORD" "flashinfer/__init__.py,,\nflashinfer_python-0.6.98.dist-info/licenses/LICENSE,,\n")
set(ENV{PYTHONPATH} "${site}")
arbench_flashinfer_from_python(wh "${PYTHON}")
expect("the wheel is found without importing flashinfer (${wh_ERROR})" wh_FOUND)
expect("its include folder is data/include" "wh_INCLUDE STREQUAL \"${site}/flashinfer/data/include\"")
expect("its version and commit from _build_meta.py" "wh_VERSION STREQUAL \"0.6.98\" AND wh_COMMIT STREQUAL \"0123456789abcdef\"")
expect_contains("its origin names the wheel and the Python" "${wh_ORIGIN}" "wheel ${site}/flashinfer")
expect_contains("the licence from the dist-info" "${wh_LICENCES}" "licenses/LICENSE")

# ---- a Python without FlashInfer ------------------------------------------------------------------
set(ENV{PYTHONPATH} "${WORK}/nothing-here")
arbench_flashinfer_from_python(none "${PYTHON}")
expect("no wheel: not found" "NOT none_FOUND")
expect_contains("no wheel: says so" "${none_ERROR}" "has no flashinfer package")
arbench_flashinfer_from_python(bad "${WORK}/no-such-python")
expect_contains("a Python that cannot run: says so" "${bad_ERROR}" "could not be run")
unset(ENV{PYTHONPATH})

# ---- a copy too old for the PCIe-IPC all-reduce, one whose API changed, a folder that is neither
fake_flashinfer("${WORK}/old/include" NO_PCIE)
arbench_flashinfer_peers(old "${WORK}/old/include" "FlashInfer 0.6.17")
expect("an old copy: no PCIe-IPC, the others still" "NOT old_PCIE_IPC_OK AND old_FUSION_OK AND old_VLLM_OK")
expect_contains("an old copy: why, with the PR that brought it" "${old_PCIE_IPC_WHY}" "PR #4393")
fake_flashinfer("${WORK}/changed/include" OLD_API)
arbench_flashinfer_peers(chg "${WORK}/changed/include" "FlashInfer 9.9")
expect("a changed API: not built" "NOT chg_PCIE_IPC_OK")
expect_contains("a changed API: names what is missing" "${chg_PCIE_IPC_WHY}" "lacks `make_peer_views`")
file(MAKE_DIRECTORY "${WORK}/neither")
arbench_flashinfer_from_dir(nei "${WORK}/neither")
expect("a folder that is no copy: not found" "NOT nei_FOUND")
expect_contains("a folder that is no copy: says what it looked for" "${nei_ERROR}" "holds neither include/flashinfer")

# ---- the pinned download, from a local server ----------------------------------------------------
set(remote "${WORK}/remote/abc123")
fake_flashinfer("${remote}/include")
file(WRITE "${remote}/LICENSE" "Apache\n")
file(SHA256 "${remote}/include/flashinfer/comm/pcie_ipc_all_reduce.cuh" h1)
file(SHA256 "${remote}/LICENSE" h2)
set(pins "include/flashinfer/comm/pcie_ipc_all_reduce.cuh=${h1}" "LICENSE=${h2}")
arbench_flashinfer_download(dl "file://${WORK}/remote" abc123 "${WORK}/dl" FILES ${pins})
expect("the download with the right hashes (${dl_ERROR})" dl_FOUND)
expect("the files are there" "EXISTS \"${WORK}/dl/include/flashinfer/comm/pcie_ipc_all_reduce.cuh\"")
arbench_flashinfer_download(wrong "file://${WORK}/remote" abc123 "${WORK}/dl-wrong"
  FILES "LICENSE=0000000000000000000000000000000000000000000000000000000000000000")
expect("a wrong hash fails" "NOT wrong_FOUND")
expect_contains("a wrong hash: one line naming the file" "${wrong_ERROR}" "download failed at file://${WORK}/remote/abc123/LICENSE")
expect("a wrong hash: nothing left behind" "NOT EXISTS \"${WORK}/dl-wrong/LICENSE\"")
string(FIND "${wrong_ERROR}" "\n" nl)
expect("a wrong hash: one line" "nl EQUAL -1")
arbench_flashinfer_download(gone "file://${WORK}/remote" abc123 "${WORK}/dl-gone" FILES "NOTICE=${h2}")
expect_contains("a missing file: says what to do without network" "${gone_ERROR}" "-DARBENCH_FLASHINFER_DIR")

# ---- a vLLM checkout -----------------------------------------------------------------------------
file(MAKE_DIRECTORY "${WORK}/vllm/csrc")
file(WRITE "${WORK}/vllm/csrc/custom_all_reduce.cuh" "#include \"sm70_signal.cuh\"\nvoid cross_device_reduce_1stage();\n"
  "void cross_device_reduce_2stage(); struct RankData; struct RankSignals;\n")
file(WRITE "${WORK}/vllm/csrc/sm70_signal.cuh" "constexpr int kMaxBlocks = 64;\n")
file(WRITE "${WORK}/vllm/LICENSE" "Apache\n")
file(COPY "${WORK}/vllm/" DESTINATION "${WORK}/vllm-ok")
arbench_vllm_from_dir(vl "${WORK}/vllm")
expect("a vLLM checkout (${vl_WHY})" vl_OK)
expect("its header closure follows a sibling include" "vl_FILES STREQUAL \"custom_all_reduce.cuh;sm70_signal.cuh\"")
file(WRITE "${WORK}/vllm/csrc/custom_all_reduce.cuh" "void something_else();\n")
arbench_vllm_from_dir(vl2 "${WORK}/vllm")
expect_contains("a vLLM checkout without the kernels: says so" "${vl2_WHY}" "lacks `cross_device_reduce_1stage")

# ---- the configure step: no copy, then the checkout ----------------------------------------------
set(ENV{PYTHONPATH} "${WORK}/nothing-here")
arbench_configure_peers("${WORK}/gen/off.cpp" MODE AUTO PYTHON "${PYTHON}")
file(READ "${WORK}/gen/off.cpp" gen)
expect("no copy: no peer built" "NOT ARBENCH_PEER_PCIE_IPC AND NOT ARBENCH_PEER_FUSION AND NOT ARBENCH_PEER_VLLM")
string(FIND "${ARBENCH_PEERS_LINE}" "\n" nl)
expect("no copy: one line" "nl EQUAL -1")
expect_contains("no copy: the line says how to turn peers on" "${ARBENCH_PEERS_LINE}" "-DARBENCH_FLASHINFER_DIR=")
expect_contains("no copy: the record keeps the reason for `arbench list`" "${gen}" "{\"flashinfer-pcie-ipc\", R\"arb(peers off: ")
unset(ENV{PYTHONPATH})
arbench_configure_peers("${WORK}/gen/on.cpp" MODE AUTO FLASHINFER_DIR "${co}" VLLM_DIR "${WORK}/vllm-ok")
file(READ "${WORK}/gen/on.cpp" gen)
expect("a checkout: every peer built" "ARBENCH_PEER_PCIE_IPC AND ARBENCH_PEER_FUSION AND ARBENCH_PEER_VLLM")
expect_contains("a checkout: the record names it with its version" "${gen}" "{\"FlashInfer\", R\"arb(checkout ${co})arb\", R\"arb(0.6.99)arb\"")
expect_contains("a checkout: the record carries the hashes" "${gen}" "{\"flashinfer/utils.cuh\", \"${h}\"}")
expect_contains("the line names the peers built" "${ARBENCH_PEERS_LINE}" "peers built: flashinfer-pcie-ipc, flashinfer-fused")

# ARBENCH_PEERS=ON without a copy, and a FlashInfer folder that is no copy: configure stops, saying why.
file(WRITE "${WORK}/fatal.cmake" "list(APPEND CMAKE_MODULE_PATH ${SOURCE_DIR}/cmake)\ninclude(ArbenchPeers)\n"
  "set(ENV{PYTHONPATH} \"${WORK}/nothing-here\")\n"
  "arbench_configure_peers(\"${WORK}/gen/x.cpp\" MODE \${M} FLASHINFER_DIR \"\${D}\" PYTHON \"${PYTHON}\")\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DM=ON -DD= -P "${WORK}/fatal.cmake" RESULT_VARIABLE rc ERROR_VARIABLE err)
expect("ARBENCH_PEERS=ON without a copy stops the configure" "NOT rc EQUAL 0")
expect_contains("ARBENCH_PEERS=ON without a copy: why" "${err}" "ARBENCH_PEERS=ON but no peer can be built")
execute_process(COMMAND ${CMAKE_COMMAND} -DM=AUTO "-DD=${WORK}/neither" -P "${WORK}/fatal.cmake" RESULT_VARIABLE rc
  ERROR_VARIABLE err)
expect("a given FlashInfer folder that is no copy stops the configure" "NOT rc EQUAL 0")
expect_contains("a given FlashInfer folder that is no copy: why" "${err}" "holds neither include/flashinfer")
