from ._app import main

if __name__ == "__main__":  # importing the package's modules (as a test that walks them does) starts nothing
    main()
