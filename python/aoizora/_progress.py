"""The default progress display: one line on a terminal, rewritten at every stage."""

import shutil


class TerminalProgress:
    """A progress callback (message, elapsed_seconds) that keeps one status line on `stream`
    (a terminal): "[  1.23 s] rank: compiling and placing 7 survivors ...", cut to the terminal's width.
    close() ends the line. aoizora.plan() uses it when stderr is a terminal and progress=None."""

    def __init__(self, stream):
        self._stream = stream
        self._shown = False

    def __call__(self, message, elapsed_seconds):
        width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
        line = f"[{elapsed_seconds:7.2f} s] {message}"
        if len(line) > width:
            line = line[: width - 3] + "..."
        # \r and erase-to-end-of-line: the line is rewritten in place.
        self._stream.write("\r\x1b[K" + line)
        self._stream.flush()
        self._shown = True

    def close(self):
        if self._shown:
            self._stream.write("\n")
            self._stream.flush()
            self._shown = False
