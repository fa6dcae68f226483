"""Running a thinker's think() off the caller's thread: on a thread of this
process, or in a worker process (the parent side, the worker side and the
messages between them)."""
