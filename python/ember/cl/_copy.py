"""``enqueue_copy``: one call for every copy PyOpenCL has, between host memory, buffers
(ember arrays too) and images; it picks the buffer copies (``_memory``) or the image copies
(``_image``) by the objects given."""

from __future__ import annotations

from . import _image, _memory, _svm


def enqueue_copy(queue, dest, src, **kwargs):
    """Copies ``src`` into ``dest``, as PyOpenCL's ``enqueue_copy``:

    - buffer from buffer: ``byte_count`` (default: as much as fits), ``src_offset``,
      ``dst_offset``, or a rectangle (``src_origin``, ``dst_origin``, ``region``, pitches);
    - buffer from host: ``dst_offset``; host from buffer: ``src_offset``;
    - image from or to host: ``origin``, ``region`` (pixels), ``pitches``;
    - image from image: ``src_origin``, ``dest_origin``, ``region``; image to buffer:
      ``origin``, ``region``, ``offset``; buffer to image: ``offset``, ``origin``, ``region``;
    - SVM memory from or to SVM memory or host arrays: ``byte_count`` (default the source's).

    Transfers with host memory are done when the call returns (``is_blocking=False`` is
    accepted and also completes). ``wait_for`` lists events to wait for first.
    """
    if isinstance(dest, _svm.SVMPointer) or isinstance(src, _svm.SVMPointer):
        return _svm.copy_with_svm(queue, dest, src, kwargs)
    if isinstance(dest, _image.Image) or isinstance(src, _image.Image):
        return _image.copy_with_image(queue, dest, src, kwargs)
    return _memory.copy_buffers(queue, dest, src, **kwargs)
