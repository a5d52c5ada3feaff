"""The command line and the composition of the parts: the `tilecam` command, the live camera
pipeline joined to the web pages, and the demo."""
