# syntax=docker/dockerfile:1
# benchcamp's Airflow image, built by `docker compose up -d --build` (docker-compose.yaml).
#
# Airflow's image plus the project's locked Python dependencies (uv.lock, without the dev group)
# and the HiveBench data generator jar. The project's own code (include/, dags/, plugins/,
# dbt_project/, expectations/) is not copied in: docker-compose.yaml mounts it read-only.
# No Java and no OpenSSH are added: tasks reach targets over SSH with paramiko (Airflow's
# SSHHook), copy the generator jar there and run `java` on the target; dbt-duckdb, DuckDB and
# Great Expectations run in-process. The local lab is not part of this image.
# Every base image is pinned; tests/unit/test_compose.py checks the pins and that the Airflow
# tag matches the Airflow version in uv.lock.

# The generator jar (JDK only; Maven fetches its plugins from Maven Central).
FROM maven:3.9.9-eclipse-temurin-17 AS hivebench
WORKDIR /build
COPY lab/hivebench/pom.xml pom.xml
COPY lab/hivebench/src src
RUN mvn -q -B package -DskipTests

# The uv that wrote uv.lock reads it; the Airflow image's own uv may be older.
FROM ghcr.io/astral-sh/uv:0.13.9 AS uv

# uv.lock exported as a plain requirements file (no project, no dev or docs tools, no hashes).
FROM apache/airflow:3.3.2-python3.11 AS requirements
COPY --from=uv /uv /tmp/uv
COPY pyproject.toml uv.lock /tmp/benchcamp/
RUN /tmp/uv export --project /tmp/benchcamp --frozen --no-dev --no-group docs --no-hashes --no-emit-project \
        --no-header --quiet --output-file /tmp/requirements.txt

FROM apache/airflow:3.3.2-python3.11
# Pinning apache-airflow to the image's version makes a uv.lock that moved to another Airflow
# fail here, at build time, instead of half-upgrading the image.
COPY --from=requirements /tmp/requirements.txt /tmp/benchcamp-requirements.txt
RUN uv pip install --no-cache "apache-airflow==${AIRFLOW_VERSION}" -r /tmp/benchcamp-requirements.txt

# /opt/benchcamp mirrors the checkout (benchcamp.core.paths.repo_root() is include/'s parent), so the
# package finds dbt_project/ and the generator jar where it finds them in a clone.
# data/ (results and warehouse), Airflow's logs and the login file are named volumes: created
# here owned by airflow and group 0 so that any AIRFLOW_UID (always run with group 0) can write.
USER root
RUN mkdir -p /opt/benchcamp/data /opt/benchcamp/lab/hivebench/target /opt/airflow/auth \
    && chown -R airflow:0 /opt/benchcamp /opt/airflow/auth \
    && chmod -R g+rwX /opt/benchcamp /opt/airflow/auth
COPY --from=hivebench --chown=airflow:0 /build/target/hivebench-datagen.jar \
     /opt/benchcamp/lab/hivebench/target/hivebench-datagen.jar
USER airflow
WORKDIR /opt/benchcamp
