# bench: files of this folder (see top Makefile.am)
