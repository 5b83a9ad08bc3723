// FF_PORTABLE only. Debian's static libhwloc.a is built with libudev, which Debian ships
// only as a shared library. hwloc asks udev for extra attributes of block devices and works
// without it when udev_new() fails (its Linux backend reads sysfs for PCI, network and
// InfiniBand devices regardless); these stubs make it fail.
extern "C" {
struct udev;
struct udev_device;

udev* udev_new() { return nullptr; }
udev* udev_unref(udev*) { return nullptr; }
udev_device* udev_device_new_from_subsystem_sysname(udev*, const char*, const char*) {
  return nullptr;
}
const char* udev_device_get_property_value(udev_device*, const char*) { return nullptr; }
udev_device* udev_device_unref(udev_device*) { return nullptr; }
}
