# mpid/: the device.
libmpi_la_SOURCES += mpid/mpid.h mpid/channel.h
