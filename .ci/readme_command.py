"""Prints the README's test command: the one line of the ```sh block that
follows the paragraph "Install and run all tests". .ci/run runs it, and
test_package_layout checks that it is there, whole."""

import sys


def readme_test_command(readme: str) -> str:
    """The command, or SystemExit naming what is missing."""
    text = readme.split("Install and run all tests", 1)
    if len(text) != 2:
        raise SystemExit("README.md: no paragraph 'Install and run all tests'")
    block = text[1].split("```sh\n", 1)[-1].split("\n```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    if len(lines) != 1:
        raise SystemExit(f"README.md: the test command is {len(lines)} lines, not one")
    return lines[0]


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(readme_test_command(f.read()))
