"""The seccomp filter every sandboxed process gets."""

from __future__ import annotations

import errno
import platform
import struct


def _seccomp_filter() -> bytes | None:
    """A classic-BPF seccomp program refusing dangerous syscalls with EPERM (x86_64 only)."""
    if platform.machine() != "x86_64":
        return None
    denied = [101, 310, 311,  # ptrace, process_vm_readv, process_vm_writev
              165, 166, 155, 161,  # mount, umount2, pivot_root, chroot
              272, 308,  # unshare, setns
              248, 249, 250,  # add_key, request_key, keyctl
              321, 298, 323,  # bpf, perf_event_open, userfaultfd
              246, 320, 175, 313, 176,  # kexec_load, kexec_file_load, init/finit/delete_module
              169, 167, 168, 163, 179,  # reboot, swapon, swapoff, acct, quotactl
              304, 303, 103, 300, 212,  # open_by_handle_at, name_to_handle_at, syslog, fanotify_init, lookup_dcookie
              172, 173,  # iopl, ioperm
              425, 426, 427,  # io_uring_setup, io_uring_enter, io_uring_register
              428, 429, 430, 431, 432, 433, 442]  # open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr
    ld_w_abs, jeq_k, jge_k, ret_k = 0x20, 0x15, 0x35, 0x06
    audit_arch_x86_64 = 0xC000003E
    ret_allow, ret_eperm, ret_kill = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x80000000
    n = len(denied)
    prog = [
        (ld_w_abs, 0, 0, 4),  # A = arch
        (jeq_k, 1, 0, audit_arch_x86_64),  # native: skip the kill
        (ret_k, 0, 0, ret_kill),
        (ld_w_abs, 0, 0, 0),  # A = syscall number
        (jge_k, n + 1, 0, 0x40000000),  # the x32 ABI: refuse
    ]
    for i, nr in enumerate(denied):
        prog.append((jeq_k, n - i, 0, nr))  # to the EPERM return
    prog += [(ret_k, 0, 0, ret_allow), (ret_k, 0, 0, ret_eperm)]
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)
