module github.com/archivectl/archivectl/bench/robots

go 1.26.0

require github.com/archivectl/archivectl v0.0.0

require github.com/temoto/robotstxt v1.1.2

replace github.com/archivectl/archivectl => ../..
