"""PyOpenCL's constant classes, with OpenCL's values (the one table of them in ember.cl)."""

from __future__ import annotations

from . import _info


class _Constants:
    """A namespace of int constants; ``to_string(value)`` names one as PyOpenCL does."""

    @classmethod
    def to_string(cls, value, default_format=None) -> str:
        for name in dir(cls):
            if name.isupper() and getattr(cls, name) == value:
                return name
        if default_format is not None:
            return default_format % value
        raise ValueError(f"{cls.__name__} has no constant with value {value}")


class device_type(_Constants):
    DEFAULT = 1 << 0
    CPU = 1 << 1
    GPU = 1 << 2
    ACCELERATOR = 1 << 3
    CUSTOM = 1 << 4
    ALL = 0xFFFFFFFF


class mem_flags(_Constants):
    READ_WRITE = 1 << 0
    WRITE_ONLY = 1 << 1
    READ_ONLY = 1 << 2
    USE_HOST_PTR = 1 << 3
    ALLOC_HOST_PTR = 1 << 4
    COPY_HOST_PTR = 1 << 5
    HOST_WRITE_ONLY = 1 << 7
    HOST_READ_ONLY = 1 << 8
    HOST_NO_ACCESS = 1 << 9
    KERNEL_READ_AND_WRITE = 1 << 12


class map_flags(_Constants):
    READ = 1 << 0
    WRITE = 1 << 1
    WRITE_INVALIDATE_REGION = 1 << 2


class command_queue_properties(_Constants):
    OUT_OF_ORDER_EXEC_MODE_ENABLE = 1 << 0
    PROFILING_ENABLE = 1 << 1
    ON_DEVICE = 1 << 2
    ON_DEVICE_DEFAULT = 1 << 3


class command_execution_status(_Constants):
    COMPLETE = 0
    RUNNING = 1
    SUBMITTED = 2
    QUEUED = 3


class context_properties(_Constants):
    PLATFORM = 0x1084


class platform_info(_Constants):
    """Every parameter of ``_info.PLATFORM`` (set below)."""


class device_info(_Constants):
    """Every parameter of ``_info.DEVICE`` (set below)."""


for _name, (_code, _) in _info.DEVICE.items():
    setattr(device_info, _name, _code)
for _name, (_code, _) in _info.PLATFORM.items():
    setattr(platform_info, _name, _code)


class command_queue_info(_Constants):
    CONTEXT = 0x1090
    DEVICE = 0x1091
    REFERENCE_COUNT = 0x1092
    PROPERTIES = 0x1093


class program_build_info(_Constants):
    STATUS = 0x1181
    OPTIONS = 0x1182
    LOG = 0x1183


class build_status(_Constants):
    SUCCESS = 0
    NONE = -1
    ERROR = -2
    IN_PROGRESS = -3


class event_info(_Constants):
    COMMAND_QUEUE = 0x11D0
    REFERENCE_COUNT = 0x11D2
    COMMAND_EXECUTION_STATUS = 0x11D3
    CONTEXT = 0x11D4


class profiling_info(_Constants):
    QUEUED = 0x1280
    SUBMIT = 0x1281
    START = 0x1282
    END = 0x1283
    COMPLETE = 0x1284


class context_info(_Constants):
    DEVICES = 0x1081
    PROPERTIES = 0x1082
    NUM_DEVICES = 0x1083


class mem_info(_Constants):
    TYPE = 0x1100
    FLAGS = 0x1101
    SIZE = 0x1102
    HOST_PTR = 0x1103
    CONTEXT = 0x1106
    OFFSET = 0x1108


class kernel_info(_Constants):
    FUNCTION_NAME = 0x1190
    NUM_ARGS = 0x1191
    CONTEXT = 0x1193
    PROGRAM = 0x1194


class kernel_work_group_info(_Constants):
    WORK_GROUP_SIZE = 0x11B0
    LOCAL_MEM_SIZE = 0x11B2
    PRIVATE_MEM_SIZE = 0x11B4


class program_info(_Constants):
    CONTEXT = 0x1161
    NUM_DEVICES = 0x1162
    DEVICES = 0x1163
    SOURCE = 0x1164
    BINARY_SIZES = 0x1165
    BINARIES = 0x1166
    NUM_KERNELS = 0x1167
    KERNEL_NAMES = 0x1168


class status_code(_Constants):
    """The OpenCL status codes ember.cl raises with (``Error.code``)."""

    SUCCESS = 0
    DEVICE_NOT_FOUND = -1
    MEM_OBJECT_ALLOCATION_FAILURE = -4
    OUT_OF_RESOURCES = -5
    PROFILING_INFO_NOT_AVAILABLE = -7
    MEM_COPY_OVERLAP = -8
    IMAGE_FORMAT_MISMATCH = -9
    IMAGE_FORMAT_NOT_SUPPORTED = -10
    BUILD_PROGRAM_FAILURE = -11
    COMPILE_PROGRAM_FAILURE = -15
    LINKER_NOT_AVAILABLE = -16
    LINK_PROGRAM_FAILURE = -17
    INVALID_VALUE = -30
    INVALID_DEVICE_TYPE = -31
    INVALID_PLATFORM = -32
    INVALID_DEVICE = -33
    INVALID_CONTEXT = -34
    INVALID_HOST_PTR = -37
    INVALID_MEM_OBJECT = -38
    INVALID_IMAGE_FORMAT_DESCRIPTOR = -39
    INVALID_IMAGE_SIZE = -40
    INVALID_SAMPLER = -41
    INVALID_PROGRAM_EXECUTABLE = -45
    INVALID_KERNEL_NAME = -46
    INVALID_ARG_INDEX = -49
    INVALID_KERNEL_ARGS = -52
    INVALID_WORK_DIMENSION = -53
    INVALID_WORK_GROUP_SIZE = -54
    INVALID_GLOBAL_OFFSET = -56
    INVALID_OPERATION = -59
    INVALID_BUFFER_SIZE = -61
    INVALID_GLOBAL_WORK_SIZE = -63
    PLATFORM_NOT_FOUND_KHR = -1001


class mem_object_type(_Constants):
    BUFFER = 0x10F0
    IMAGE2D = 0x10F1
    IMAGE3D = 0x10F2
    IMAGE2D_ARRAY = 0x10F3
    IMAGE1D = 0x10F4
    IMAGE1D_ARRAY = 0x10F5
    IMAGE1D_BUFFER = 0x10F6
    PIPE = 0x10F7


class channel_order(_Constants):
    R = 0x10B0
    A = 0x10B1
    RG = 0x10B2
    RA = 0x10B3
    RGB = 0x10B4
    RGBA = 0x10B5
    BGRA = 0x10B6
    ARGB = 0x10B7
    INTENSITY = 0x10B8
    LUMINANCE = 0x10B9
    Rx = 0x10BA
    RGx = 0x10BB
    RGBx = 0x10BC
    DEPTH = 0x10BD
    DEPTH_STENCIL = 0x10BE
    sRGB = 0x10BF
    sRGBx = 0x10C0
    sRGBA = 0x10C1
    sBGRA = 0x10C2
    ABGR = 0x10C3


class channel_type(_Constants):
    SNORM_INT8 = 0x10D0
    SNORM_INT16 = 0x10D1
    UNORM_INT8 = 0x10D2
    UNORM_INT16 = 0x10D3
    UNORM_SHORT_565 = 0x10D4
    UNORM_SHORT_555 = 0x10D5
    UNORM_INT_101010 = 0x10D6
    SIGNED_INT8 = 0x10D7
    SIGNED_INT16 = 0x10D8
    SIGNED_INT32 = 0x10D9
    UNSIGNED_INT8 = 0x10DA
    UNSIGNED_INT16 = 0x10DB
    UNSIGNED_INT32 = 0x10DC
    HALF_FLOAT = 0x10DD
    FLOAT = 0x10DE
    UNORM_INT24 = 0x10DF
    UNORM_INT_101010_2 = 0x10E0


class image_info(_Constants):
    FORMAT = 0x1110
    ELEMENT_SIZE = 0x1111
    ROW_PITCH = 0x1112
    SLICE_PITCH = 0x1113
    WIDTH = 0x1114
    HEIGHT = 0x1115
    DEPTH = 0x1116
    ARRAY_SIZE = 0x1117
    BUFFER = 0x1118
    NUM_MIP_LEVELS = 0x1119
    NUM_SAMPLES = 0x111A


class addressing_mode(_Constants):
    NONE = 0x1130
    CLAMP_TO_EDGE = 0x1131
    CLAMP = 0x1132
    REPEAT = 0x1133
    MIRRORED_REPEAT = 0x1134


class filter_mode(_Constants):
    NEAREST = 0x1140
    LINEAR = 0x1141


class sampler_info(_Constants):
    REFERENCE_COUNT = 0x1150
    CONTEXT = 0x1151
    NORMALIZED_COORDS = 0x1152
    ADDRESSING_MODE = 0x1153
    FILTER_MODE = 0x1154


class mem_migration_flags(_Constants):
    HOST = 1 << 0
    CONTENT_UNDEFINED = 1 << 1


class svm_mem_flags(_Constants):
    READ_WRITE = 1 << 0
    WRITE_ONLY = 1 << 1
    READ_ONLY = 1 << 2
    SVM_FINE_GRAIN_BUFFER = 1 << 10
    SVM_ATOMICS = 1 << 11


class device_svm_capabilities(_Constants):
    COARSE_GRAIN_BUFFER = 1 << 0
    FINE_GRAIN_BUFFER = 1 << 1
    FINE_GRAIN_SYSTEM = 1 << 2
    ATOMICS = 1 << 3
