"""The hub's GPU view: a JupyterHub service (`python -m mgenv_jupyter.hub`, started by the hub from
`c.JupyterHub.services`) that asks every running single-user server for its own GPU view (the server extension's
`GET <server_url>mgenv-jupyter/gpus`, protocol/_gpus.py) with the service's token and shows them on one page: each
node's GPUs, and the users and notebooks holding them. An admin can shut a kernel down from it (after a confirmation);
anyone else sees only their own servers. See README.md, "The hub's GPU page".
"""
