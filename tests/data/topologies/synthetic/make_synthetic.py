#!/usr/bin/env python3
"""Writes the synthetic hwloc 2.x XML topologies used by tests/unit/topology_*.cpp.

Each machine has 2 packages with 4 PUs and one NUMA node each (PUs 0-3 on NUMA 0, 4-7 on
NUMA 1). PCIe stacks hang under their own HostBridge, the way Skylake-and-later Xeons
expose one host bridge per PCIe stack, so two stacks of one socket are NODE apart.

  server-8gpu-8nic.xml      8 GPUs, 8 NICs: every GPU shares a PCIe switch with "its" NIC
  server-8gpu-8nic-crossed.xml
                            the same, but GPU3's NIC (mlx5_3) sits in socket 1's last
                            switch instead of next to GPU3
  pcie-4gpu-nonic.xml       4 GPUs on root ports (no switch), no NIC
  pcie-4gpu-1nic.xml        the same plus one ConnectX on socket 1
  switch-2gpu-2nic-shared.xml
                            2 GPUs and mlx5_0 on one switch, mlx5_1 on another host bridge

Run it from this directory; the output is committed, the script documents it.
"""

PKG_CPUS = ["0x0000000f", "0x000000f0"]


class W:
    def __init__(self):
        self.lines = []
        self.gp = 1

    def open(self, depth, text):
        self.gp += 1
        self.lines.append("  " * depth + text.replace("GP", str(self.gp)))

    def close(self, depth):
        self.lines.append("  " * depth + "</object>")


def pcidev(w, d, busid, cls, vid, did, model, osdevs=()):
    w.open(d, f'<object type="PCIDev" gp_index="GP" pci_busid="{busid}" '
              f'pci_type="{cls} [{vid}:{did}] [{vid}:0000] 00" pci_link_speed="31.5">')
    w.open(d + 1, f'<info name="PCIDevice" value="{model}"/>')
    w.lines.pop()  # info is not an object: write it without the gp counter
    w.lines.append("  " * (d + 1) + f'<info name="PCIDevice" value="{model}"/>')
    for name, typ, infos in osdevs:
        w.open(d + 1, f'<object type="OSDev" gp_index="GP" name="{name}" osdev_type="{typ}">')
        for k, v in infos:
            w.lines.append("  " * (d + 2) + f'<info name="{k}" value="{v}"/>')
        w.close(d + 1)
    w.close(d)


def gpu(w, d, busid, k):
    pcidev(w, d, busid, "0302", "10de", "20b0", "GA100 [A100 SXM4 40GB]")


def nic(w, d, busid, k):
    pcidev(w, d, busid, "0207", "15b3", "101b", "MT28908 Family [ConnectX-6]",
           [(f"ib{k}", 2, [("Port", "1")]),
            (f"mlx5_{k}", 3, [("Port1State", "4"), ("Port1LID", hex(0x10 + k))])])


def bridge(w, d, busid, lo, hi, dom="0000"):
    w.open(d, f'<object type="Bridge" gp_index="GP" bridge_type="1-1" depth="{d}" '
              f'bridge_pci="{dom}:[{lo:02x}-{hi:02x}]" pci_busid="{busid}" '
              f'pci_type="0604 [10b5:97b0] [10b5:97b0] 00" pci_link_speed="31.5">')


def host_bridge(w, d, lo, hi):
    w.open(d, f'<object type="Bridge" gp_index="GP" bridge_type="0-1" depth="0" '
              f'bridge_pci="0000:[{lo:02x}-{hi:02x}]">')


def switch_stack(w, d, base, devices):
    """HostBridge -> root port -> switch upstream port -> one downstream port per device."""
    host_bridge(w, d, base, base + 0xf)
    bridge(w, d + 1, f"0000:{base:02x}:00.0", base + 1, base + 0xf)
    bridge(w, d + 2, f"0000:{base + 1:02x}:00.0", base + 2, base + 0xf)
    for i, (fn, k) in enumerate(devices):
        bus = base + 3 + i
        bridge(w, d + 3, f"0000:{base + 2:02x}:{i:02x}.0", bus, bus)
        fn(w, d + 4, f"0000:{bus:02x}:00.0", k)
        w.close(d + 3)
    w.close(d + 2)
    w.close(d + 1)
    w.close(d)


def root_port_stack(w, d, base, devices):
    """HostBridge -> one root port per device (a PCIe-only box, no switches)."""
    host_bridge(w, d, base, base + 0xf)
    for i, (fn, k) in enumerate(devices):
        bus = base + 1 + i
        bridge(w, d + 1, f"0000:{base:02x}:{i + 1:02x}.0", bus, bus)
        fn(w, d + 2, f"0000:{bus:02x}:00.0", k)
        w.close(d + 1)
    w.close(d)


def machine(stacks_per_pkg, name):
    """stacks_per_pkg: for package 0 and 1, a list of (stack_fn, base_bus, devices)."""
    w = W()
    w.lines += ['<?xml version="1.0" encoding="UTF-8"?>',
                '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
                '<topology version="2.0">']
    w.open(1, '<object type="Machine" os_index="0" cpuset="0x000000ff" complete_cpuset="0x000000ff" '
              'allowed_cpuset="0x000000ff" nodeset="0x00000003" complete_nodeset="0x00000003" '
              'allowed_nodeset="0x00000003" gp_index="GP">')
    w.lines.append(f'    <info name="DMIProductName" value="firstfault synthetic {name}"/>')
    pu = 0
    for p in range(2):
        cs = PKG_CPUS[p]
        ns = f"0x0000000{1 << p}"
        w.open(2, f'<object type="Package" os_index="{p}" cpuset="{cs}" complete_cpuset="{cs}" '
                  f'nodeset="{ns}" complete_nodeset="{ns}" gp_index="GP">')
        w.open(3, f'<object type="NUMANode" os_index="{p}" cpuset="{cs}" complete_cpuset="{cs}" '
                  f'nodeset="{ns}" complete_nodeset="{ns}" gp_index="GP" local_memory="68719476736"/>')
        for c in range(4):
            pcs = f"0x{1 << pu:08x}"
            w.open(3, f'<object type="Core" os_index="{c}" cpuset="{pcs}" complete_cpuset="{pcs}" '
                      f'nodeset="{ns}" complete_nodeset="{ns}" gp_index="GP">')
            w.open(4, f'<object type="PU" os_index="{pu}" cpuset="{pcs}" complete_cpuset="{pcs}" '
                      f'nodeset="{ns}" complete_nodeset="{ns}" gp_index="GP"/>')
            w.close(3)
            pu += 1
        for stack_fn, base, devices in stacks_per_pkg[p]:
            stack_fn(w, 3, base, devices)
        w.close(2)
    w.close(1)
    w.lines.append("</topology>")
    return "\n".join(w.lines) + "\n"


def write(name, text):
    with open(name, "w") as f:
        f.write(text)


def server(crossed):
    pkgs = [[], []]
    for s in range(8):
        p = s // 4
        base = (0x10 if p == 0 else 0x90) + 0x10 * (s % 4)
        devs = [(gpu, s)]
        if not (crossed and s == 3):
            devs.append((nic, s))
        if crossed and s == 7:
            devs.append((nic, 3))  # GPU3's NIC, plugged into the wrong socket
        pkgs[p].append((switch_stack, base, devs))
    return pkgs


write("server-8gpu-8nic.xml", machine(server(False), "8 GPU 8 NIC"))
write("server-8gpu-8nic-crossed.xml", machine(server(True), "8 GPU 8 NIC, crossed"))
write("pcie-4gpu-nonic.xml",
      machine([[(root_port_stack, 0x10, [(gpu, 0), (gpu, 1)])],
               [(root_port_stack, 0x90, [(gpu, 2), (gpu, 3)])]], "PCIe 4 GPU"))
write("pcie-4gpu-1nic.xml",
      machine([[(root_port_stack, 0x10, [(gpu, 0), (gpu, 1)])],
               [(root_port_stack, 0x90, [(gpu, 2), (gpu, 3), (nic, 0)])]], "PCIe 4 GPU 1 NIC"))
write("switch-2gpu-2nic-shared.xml",
      machine([[(switch_stack, 0x10, [(gpu, 0), (gpu, 1), (nic, 0)]),
                (root_port_stack, 0x30, [(nic, 1)])],
               []], "2 GPU 2 NIC shared switch"))
