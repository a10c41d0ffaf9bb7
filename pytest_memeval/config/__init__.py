"""The run's configuration: command-line options and their parsing into one `Settings`,
the checks of those settings against the suites and the install, and the registry of
suites and memory systems by name. Everything here runs before the first item.
"""
