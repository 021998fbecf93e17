# The image docker-compose.yaml builds: Airflow 3.3.2 (the version uv.lock pins) with the
# project's locked dependencies and the benchcamp package installed editable, so the
# include/ mounted over /opt/benchcamp/include is what every Airflow process imports.
# Tasks reach their targets over SSH (paramiko) and HiveServer2 (thrift); dbt-duckdb and
# Great Expectations run in the task process: no Java or Hadoop client is needed here.
FROM apache/airflow:3.3.2-python3.11

USER airflow
WORKDIR /opt/benchcamp
COPY --chown=airflow:root pyproject.toml uv.lock README.md ./
COPY --chown=airflow:root include ./include
RUN pip install --no-cache-dir "uv>=0.5" \
 && uv export --frozen --no-dev --no-hashes --no-emit-project -o /tmp/requirements.txt \
 && pip install --no-cache-dir -r /tmp/requirements.txt \
 && pip install --no-cache-dir --no-deps -e /opt/benchcamp \
 && rm /tmp/requirements.txt
# Named volumes start as copies of these folders: owned by airflow, so no service runs as root.
RUN mkdir -p /opt/airflow/auth /opt/benchcamp/var
WORKDIR /opt/airflow
