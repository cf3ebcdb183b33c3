# The pinned FlashInfer download (-DARBENCH_FLASHINFER_DOWNLOAD=ON; cmake/ArbenchPeers.cmake):
# the files arbench's peer adapters compile against, at a commit that contains FlashInfer's PCIe-IPC
# all-reduce (PR #4393, commit 299e6d11e), each with its SHA256. The commit is FlashInfer's main of
# 2026-08-22 (version.txt 0.6.18); no release tag contains PR #4393 yet. The headers are the closure
# of the three peer headers (their quoted includes, FlashInfer's logging header kept out), then the
# licence files the install ships.
set(ARBENCH_FLASHINFER_PIN_COMMIT fb28d7242b3506a2348265962041acc1fb56cca4)
set(ARBENCH_FLASHINFER_PIN_VERSION 0.6.18)
set(ARBENCH_FLASHINFER_PIN_URL https://raw.githubusercontent.com/flashinfer-ai/flashinfer)
set(ARBENCH_FLASHINFER_PIN_FILES
  include/flashinfer/comm/pcie_ipc_all_reduce.cuh=f03a372c53c20c3176cddd0f90db6242222a01ebebcbc83af96b169c37bf57a1
  include/flashinfer/comm/trtllm_allreduce_fusion.cuh=093b853acfef45e32fa2171bd25fff9bf522db361da7b79f5f189f5a8bb171ae
  include/flashinfer/comm/vllm_custom_all_reduce.cuh=7d8dc996752ba9cd338b760c8f7f982efac15a4c51782c747796ce8da82165a4
  include/flashinfer/exception.h=83126766f5b3ef24586eca68bcd3ebe45b1f8b1c5952fb55940421618175f271
  include/flashinfer/fp4_layout.cuh=376faf8ebd6e9eff90eba6f3fbc4c1d8e45ed10f7058f256a5e673f0da638bcb
  include/flashinfer/utils.cuh=d14edcb4d39503603b3347bdb20fdd6b96ff3467b97ba3f539af5f8fdd86adec
  include/flashinfer/vec_dtypes.cuh=3e292b05f261f29287cb18871fe62f6a9a59cf1f47e885bee45524776a984f2c
  LICENSE=f3514f24f2b94d09c409abbf4020cf600e4059098c697110eb91a4a2b235fbb7
  NOTICE=90bb9e1dec06f26a34f8f8ce98c53ded10b4fd8e1a9e91e2360e6be354e81db3
  version.txt=8d518e15ea773d6de0f1016e5fe976695d58abeb27001f3273a7389451155b0f)
