"""Constants shared by the plugin's tests."""

#: the API key every pytester run gets; tests that look for leaks grep their outputs for it
TEST_API_KEY = "sk-test-NEVER-WRITE-ME-0123456789abcdef"
