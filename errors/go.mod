module github.com/metatools-go/metatools/errors

go 1.25.0
