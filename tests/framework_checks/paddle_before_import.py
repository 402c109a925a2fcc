"""Set before `import paddle`: paddle.get_flags must report the normalised values."""

from _shell import emit, envset, shell

ip = shell()
NAMES = ["FLAGS_allocator_strategy", "FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_initial_cpu_memory_in_mb",
         "FLAGS_eager_delete_tensor_gb", "FLAGS_init_allocated_mem"]
set_result = envset(ip, "FLAGS_allocator_strategy=naive_best_fit FLAGS_fraction_of_gpu_memory_to_use=0.5 "
                        "FLAGS_initial_cpu_memory_in_mb=1GB FLAGS_eager_delete_tensor_gb=1.5 "
                        "FLAGS_init_allocated_mem=on")
import paddle  # noqa: E402

emit({"set": set_result, "flags": paddle.get_flags(NAMES)})
