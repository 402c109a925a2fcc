"""Set after `import paddle`: env-only warns and get_flags is unchanged; live goes through paddle.set_flags."""

from _shell import emit, envset, shell

ip = shell()
import paddle  # noqa: E402

env_only = envset(ip, "--env-only FLAGS_eager_delete_tensor_gb=2 FLAGS_initial_cpu_memory_in_mb=100")
after_env_only = paddle.get_flags(["FLAGS_eager_delete_tensor_gb", "FLAGS_initial_cpu_memory_in_mb"])
live = envset(ip, "FLAGS_fraction_of_gpu_memory_to_use=0.3 FLAGS_eager_delete_tensor_gb=4 FLAGS_init_allocated_mem=1")
after_live = paddle.get_flags(["FLAGS_fraction_of_gpu_memory_to_use", "FLAGS_eager_delete_tensor_gb",
                               "FLAGS_init_allocated_mem"])
paddle.ones([2, 2])  # the first allocation latches the allocator strategy
latched = envset(ip, "FLAGS_allocator_strategy=auto_growth")
emit({"env_only": env_only, "after_env_only": after_env_only, "live": live, "after_live": after_live,
      "latched": latched})
